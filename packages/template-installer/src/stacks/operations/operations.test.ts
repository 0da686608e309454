/**
 * The stack operations' orchestration with fake ports (the real adapters are tested on a private
 * dockerd by the server's stacks.system.test.ts): refusals before anything runs, the order of
 * compose commands, a rollback that does not bring the service back, data kept by default.
 */
import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { createLocks, createMemoryStackStore } from '../../node/stack-store.ts';
import type { EngineContainerSummary, StacksDeps } from '../ports.ts';
import { runLifecycle } from './lifecycle.ts';
import { removeStack } from './remove.ts';
import { updateStack } from './update.ts';

const COMPOSE = 'services:\n  web: {image: reg/app:1}\n';

function container(over: Partial<EngineContainerSummary> = {}): EngineContainerSummary {
  return {
    id: 'c1',
    name: 'web_web_1',
    project: 'web',
    service: 'web',
    state: 'running',
    status: 'Up 2 seconds',
    image: 'reg/app:1',
    imageId: 'sha256:old',
    ports: [],
    ...over,
  };
}

async function fake(options: { ports?: number[]; afterUp?: (n: number) => EngineContainerSummary[] } = {}) {
  const stacks = createMemoryStackStore();
  await stacks.insertPending({ name: 'web', template: null, compose: COMPOSE, installedAt: 'x' }, '');
  await stacks.finish('web');
  const calls: string[] = [];
  let containers: EngineContainerSummary[] = [container()];
  let ups = 0;
  const tags: string[] = [];
  let refImage = 'sha256:old';
  const deps: StacksDeps = {
    stacks,
    locks: createLocks(),
    engine: {
      containers: async (p) => containers.filter((c) => p === undefined || c.project === p),
      imageDigests: async () =>
        new Map([
          ['sha256:old', ['reg/app@sha256:d-old']],
          ['sha256:new', ['reg/app@sha256:d-new']],
        ]),
      containerReference: async () => 'reg/app:1',
      imageId: async () => refImage,
      tagImage: async (id, ref) => {
        tags.push(`${id} ${ref}`);
        refImage = id;
      },
      logs: async function* () {},
    },
    compose: {
      run: async (_stack, args, o) => {
        calls.push(args.join(' '));
        if (args[0] === 'pull') refImage = 'sha256:new';
        if (args[0] === 'up') {
          ups++;
          containers = options.afterUp?.(ups) ?? [container({ imageId: refImage })];
          o?.onLine?.('Starting web_web_1 ... done');
        }
        return { exitCode: 0, stdout: '', stderr: '', cancelled: false };
      },
    },
    listeners: async () => [{ port: 8080, holder: 'process nginx (pid 7)' }],
    publishedPorts: async () => options.ports ?? [],
    bindSources: async () => ['/cache/appdata/web', '/mnt/user/media'],
    appDataRoot: '/cache',
    stackDir: () => '/nonexistent/stacks/web',
    updates: async () => new Map(),
  };
  return { deps, calls, tags, stacks };
}

describe('start', () => {
  it('refuses a port held by a process before any compose command', async () => {
    const f = await fake({ ports: [8080] });
    const err = await runLifecycle(f.deps, 'web', 'start').catch((e: AppError) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('port_in_use');
    expect((err as AppError).details).toEqual({
      stack: 'web',
      conflicts: [{ port: 8080, holder: 'process nginx (pid 7)' }],
    });
    expect(f.calls).toEqual([]);
  });
  it('reports per-service progress from the tool’s lines', async () => {
    const f = await fake();
    const seen: unknown[] = [];
    const state = await runLifecycle(f.deps, 'web', 'start', { onService: (p) => seen.push(p) });
    expect(f.calls).toEqual(['up -d']);
    expect(seen).toEqual([{ service: 'web', action: 'starting', percent: 99 }]);
    expect(state.status).toBe('running');
  });
  it('an unknown stack is stack_not_found', async () => {
    const f = await fake();
    await expect(runLifecycle(f.deps, 'nope', 'stop')).rejects.toMatchObject({ code: 'stack_not_found' });
  });
});

describe('update', () => {
  it('recreates the changed service and reports both digests', async () => {
    const f = await fake();
    const r = await updateStack(f.deps, 'web', { pollMs: 1 });
    expect(f.calls).toEqual(['pull', 'up -d --no-deps web']);
    expect(r.updated).toEqual([
      {
        service: 'web',
        reference: 'reg/app:1',
        fromImage: 'sha256:old',
        toImage: 'sha256:new',
        fromDigests: ['sha256:d-old'],
        toDigests: ['sha256:d-new'],
      },
    ]);
  });
  it('an exited new container rolls back by tagging the old image and recreating', async () => {
    const f = await fake({
      afterUp: (n) => [
        n === 1
          ? container({ imageId: 'sha256:new', state: 'exited', status: 'Exited (1) 1 second ago' })
          : container({ imageId: 'sha256:old' }),
      ],
    });
    const err = (await updateStack(f.deps, 'web', { pollMs: 1 }).catch((e) => e)) as AppError;
    expect(err.code).toBe('update_rolled_back');
    expect(err.message).toContain('its container web_web_1 exited with code 1');
    expect(err.details).toMatchObject({ service: 'web', healthyAfterRollback: true });
    expect(f.tags).toEqual(['sha256:old reg/app:1']);
    expect(f.calls).toEqual(['pull', 'up -d --no-deps web', 'up -d --no-deps web']);
  });
  it('says so when the rollback does not bring the service back either', async () => {
    const f = await fake({
      afterUp: () => [container({ state: 'restarting', status: 'Restarting (1) 1 second ago' })],
    });
    const err = (await updateStack(f.deps, 'web', { pollMs: 1 }).catch((e) => e)) as AppError;
    expect(err.code).toBe('update_rolled_back');
    expect(err.message).toContain('were put back on, but are not healthy on,');
    expect(err.details).toMatchObject({ healthyAfterRollback: false });
  });
});

describe('remove', () => {
  it('keeps data by default and lists only folders below the app-data root', async () => {
    const f = await fake();
    const r = await removeStack(f.deps, 'web', { confirm: 'DELETE web' });
    expect(r).toEqual({ stack: 'web', data: [{ folder: '/cache/appdata/web', outcome: 'kept' }] });
    expect(f.calls).toEqual(['down']);
    expect(await f.stacks.get('web')).toBeNull();
  });
  it('a wrong phrase runs nothing', async () => {
    const f = await fake();
    await expect(
      removeStack(f.deps, 'web', { confirm: 'DELETE web', removeData: true }),
    ).rejects.toMatchObject({
      code: 'confirmation_mismatch',
    });
    expect(f.calls).toEqual([]);
    expect(await f.stacks.get('web')).not.toBeNull();
  });
});
