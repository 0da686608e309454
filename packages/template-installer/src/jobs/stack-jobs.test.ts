/**
 * The stack jobs' own decisions on fake ports: the backup guard, the snapshot before an update
 * (plan gone, backup failed, taken), and the image-update conditions an update clears or raises.
 */
import { Refusal } from '@appliance/common';
import type { JobHandle } from '@appliance/jobs';
import { describe, expect, it } from 'vitest';
import { createLocks, createMemoryStackStore } from '../node/stack-store.ts';
import type { EngineContainerSummary, StacksDeps } from '../stacks/ports.ts';
import { memoryStackJobPorts } from '../test-support/index.ts';
import { runStackJob, stackJobImplementation } from './stack-jobs.ts';

const web = (imageId: string): EngineContainerSummary => ({
  id: 'c1',
  name: 'web_web_1',
  project: 'web',
  service: 'web',
  state: 'running',
  status: 'Up 2 seconds',
  image: 'reg/app:1',
  imageId,
  ports: [],
});

/** A stack `web` whose pull finds `pulled` (the running image is sha256:old). */
async function setup(pulled = 'sha256:old') {
  const stacks = createMemoryStackStore();
  await stacks.insertPending(
    { name: 'web', template: null, compose: 'services:\n  web: {image: reg/app:1}\n', installedAt: 'x' },
    '',
  );
  await stacks.finish('web');
  const calls: string[] = [];
  let current = 'sha256:old';
  let reference = 'sha256:old';
  const deps: StacksDeps = {
    stacks,
    locks: createLocks(),
    engine: {
      containers: async () => [web(current)],
      imageDigests: async () => new Map(),
      containerReference: async () => 'reg/app:1',
      imageId: async () => reference,
      tagImage: async (id) => {
        reference = id;
      },
      logs: async function* () {},
    },
    compose: {
      run: async (_stack, args) => {
        calls.push(args.join(' '));
        if (args[0] === 'pull') reference = pulled;
        if (args[0] === 'up') current = reference === 'sha256:broken' ? 'sha256:none' : reference;
        return {
          exitCode: reference === 'sha256:broken' && args[0] === 'up' ? 1 : 0,
          stdout: '',
          stderr: 'no such image',
          cancelled: false,
        };
      },
    },
    listeners: async () => [],
    publishedPorts: async () => [],
    bindSources: async () => [],
    appDataRoot: '/cache',
    stackDir: () => '/nonexistent/stacks/web',
    updates: async () => new Map(),
  };
  const ports = memoryStackJobPorts(deps);
  const lines: string[] = [];
  const phases: string[] = [];
  const handle: JobHandle = {
    id: 'job-1',
    signal: new AbortController().signal,
    trigger: 'request',
    phase: (p) => void phases.push(p),
    progress: () => undefined,
    output: (l) => void lines.push(l),
    pid: () => undefined,
    completed: () => undefined,
  };
  return { ports, calls, lines, phases, handle };
}

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => (e instanceof Refusal ? `${e.code} ${JSON.stringify(e.details ?? {})}` : String(e)),
  );

describe('stack jobs', () => {
  it('refuses while a backup of the stack runs, before anything runs', async () => {
    const f = await setup();
    f.ports.backups.runningOf = (name) => (name === 'web' ? { id: 'job-9' } : null);
    const job = stackJobImplementation(() => f.ports, 'start');
    expect(await code(job.run(f.handle, { stack: 'web' }))).toBe(
      'stack_backup_running {"stack":"web","job":"job-9"}',
    );
    expect(f.calls).toEqual([]);
  });

  it('snapshot first: a plan gone or a failed backup updates nothing', async () => {
    const f = await setup('sha256:new');
    expect(
      await code(runStackJob(f.ports, f.handle, 'update', { stack: 'web', snapshotPlan: 'nightly' })),
    ).toBe('no_backup_plan {}');
    expect(f.lines).toEqual([]);
    f.ports.backups.hasPlan = () => true;
    f.ports.backups.runPlan = async () => ({ jobId: 'job-7', state: 'failed', error: 'the disk is gone' });
    expect(
      await code(runStackJob(f.ports, f.handle, 'update', { stack: 'web', snapshotPlan: 'nightly' })),
    ).toBe('snapshot_failed {"stack":"web","job":"job-7"}');
    expect(f.calls).toEqual([]);
    expect(f.lines).toEqual(['taking a snapshot first: running the backup plan nightly']);
  });

  it('a snapshot taken, then the update; success clears the stack’s update conditions', async () => {
    const f = await setup('sha256:new');
    const ran: string[] = [];
    f.ports.backups.hasPlan = () => true;
    f.ports.backups.runPlan = async (plan) => {
      ran.push(plan);
      return { jobId: 'job-8', state: 'succeeded', error: null };
    };
    await f.ports.conditions.hold(
      'image:web/web',
      { eventType: 'x', subject: 's', title: 't', message: 'm' },
      'w',
    );
    await f.ports.conditions.hold(
      'image:other/web',
      { eventType: 'x', subject: 's', title: 't', message: 'm' },
      'w',
    );
    const r = await runStackJob(f.ports, f.handle, 'update', { stack: 'web', snapshotPlan: 'nightly' });
    expect(r).toMatchObject({ stack: 'web', updated: [{ service: 'web', toImage: 'sha256:new' }] });
    expect(ran).toEqual(['nightly']);
    expect(f.phases).toEqual(['updating', 'snapshot', 'updating']);
    expect(f.lines.slice(0, 2)).toEqual([
      'taking a snapshot first: running the backup plan nightly',
      'snapshot taken (backup job job-8)',
    ]);
    expect([...f.ports.conditions.held.keys()]).toEqual(['image:other/web']);
  });

  it('a failed update raises the service’s update condition again with the reason', async () => {
    const f = await setup('sha256:broken');
    const err = await code(runStackJob(f.ports, f.handle, 'update', { stack: 'web' }));
    expect(err).toMatch(/^compose_failed /);
    expect(f.ports.conditions.held.size).toBe(0); // no service named in the refusal, no condition held before
    await f.ports.conditions.hold(
      'image:web/web',
      { eventType: 'x', subject: 's', title: 't', message: 'm' },
      'w',
    );
    await code(runStackJob(f.ports, f.handle, 'update', { stack: 'web' }));
    expect(f.ports.conditions.held.get('image:web/web')).toMatchObject({
      source: 'apps',
      report: {
        eventType: 'container_update_available',
        title: 'Stack web: the update of web failed',
        message: expect.stringMatching(
          /^A newer image is available for the stack web \(service web\), but applying it failed: The compose tool could not/,
        ),
      },
    });
  });
});
