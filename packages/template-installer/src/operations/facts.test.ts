/** The backups and conditions ports built from stored records, the catalog's stacks per template, the log follow. */
import { describe, expect, it } from 'vitest';
import { memoryConditions, memoryStacksDeps } from '../test-support/index.ts';
import { createStackBackups, planHoldsStack, type StoredPlan } from './backups.ts';
import { stackRowOf } from '../node/stack-store.ts';
import { stacksByTemplate } from './catalog.ts';
import { createStackConditions, stackUpdates } from './conditions.ts';
import { openLogFollow, pipeLogFollow } from './logs.ts';

const plans: StoredPlan[] = [
  { name: 'broken', destination: 'usb', stacks: '{not json' },
  { name: 'nightly', destination: 'usb', stacks: '[{"name":"web"}]' },
];

describe('createStackBackups', () => {
  const backups = (restores: { id: string; stack: string | null }[], runs: { id: string; plan: string }[]) =>
    createStackBackups({
      runningRestores: () => restores,
      runningBackups: () => runs,
      plans: () => plans,
      runPlan: async (p) => ({ jobId: `run-${p.name}`, state: 'succeeded', error: null }),
    });

  it('a restore of the stack, else a backup of a plan holding it, holds the stack', () => {
    expect(backups([{ id: 'r1', stack: 'db' }], [{ id: 'b1', plan: 'nightly' }]).runningOf('web')).toEqual({
      id: 'b1',
      plan: 'nightly',
    });
    expect(backups([{ id: 'r1', stack: 'web' }], [{ id: 'b1', plan: 'nightly' }]).runningOf('web')?.id).toBe(
      'r1',
    );
    expect(backups([{ id: 'r1', stack: null }], [{ id: 'b2', plan: 'broken' }]).runningOf('web')).toBeNull();
  });

  it('a plan whose stack list does not read covers nothing; a gone plan runs nothing', async () => {
    expect(planHoldsStack(plans[0], 'web')).toBe(false);
    expect(planHoldsStack(undefined, 'web')).toBe(false);
    const b = backups([], []);
    expect(b.planCovering('web')).toEqual({ name: 'nightly', destination: 'usb' });
    expect(b.planCovering('db')).toBeNull();
    expect(b.hasPlan('gone')).toBe(false);
    expect(await b.runPlan('gone')).toBeNull();
    expect((await b.runPlan('nightly'))?.jobId).toBe('run-nightly');
  });
});

describe('conditions', () => {
  // a LIKE match also finds `image:web_x/…` for `image:web/` (`_` is a wildcard) and ignores case
  const open = async () => [
    { key: 'image:web/app', message: 'newer app' },
    { key: 'image:WEB/db', message: 'other case' },
    { key: 'image:web2/app', message: 'another stack' },
  ];

  it('a stack’s update marks are the open image conditions under its exact prefix', async () => {
    expect(await stackUpdates(open, 'web')).toEqual(new Map([['app', 'newer app']]));
  });

  it('open keys are checked against the prefix again; hold and clear pass through', async () => {
    const held = memoryConditions();
    const c = createStackConditions(open, held);
    expect(await c.openKeys('image:web/')).toEqual(['image:web/app']);
    await c.hold('k', { eventType: 'e', subject: 's', title: 't', message: 'm' }, 'src');
    expect([...held.held.keys()]).toEqual(['k']);
    await c.clear('k');
    expect(held.held.size).toBe(0);
  });
});

describe('stacksByTemplate', () => {
  it('groups installed stacks by template id; pending and hand-made ones are left out', () => {
    const t = (id: string) => ({ source: 'builtin', id, revision: 1 });
    const row = (name: string, template: ReturnType<typeof t> | null, pending = false) => ({
      name,
      template,
      compose: '',
      installedAt: 'x',
      manuallyEdited: false,
      pending,
    });
    const map = stacksByTemplate([
      row('a', t('jellyfin')),
      row('b', t('jellyfin')),
      row('c', t('immich'), true),
      row('d', null),
    ]);
    expect([...map]).toEqual([['jellyfin', ['a', 'b']]]);
  });
});

describe('log follow', () => {
  it('refuses an unknown stack before any stream; writes connected, the lines and end', async () => {
    const deps = memoryStacksDeps();
    await expect(openLogFollow(deps, 'nope', {})).rejects.toMatchObject({ code: 'stack_not_found' });
    await deps.addStack('web');
    deps.containers.push({ ...(await import('../test-support/index.ts')).memoryContainer('web') });
    deps.engine.logs = async function* () {
      yield { time: 't', service: 'web', container: 'web_web_1', stream: 'stdout' as const, text: 'hello' };
    };
    const follow = await openLogFollow(deps, 'web', {});
    const out: string[] = [];
    await pipeLogFollow(follow, {
      comment: async (t) => void out.push(`: ${t}`),
      event: async (e, d) => void out.push(`${e} ${d}`),
      onAbort: () => undefined,
    });
    expect(out[0]).toBe(': connected');
    expect(out.slice(1)).toEqual([
      `line ${JSON.stringify({ time: 't', service: 'web', container: 'web_web_1', stream: 'stdout', text: 'hello' })}`,
      'end {}',
    ]);
    expect(follow.controller.signal.aborted).toBe(true);
  });
});

describe('stackRowOf', () => {
  it('a template reference only when its three columns are set; flags from 0/1', () => {
    const stored = {
      name: 'tv',
      templateSource: 'builtin',
      templateId: 'jellyfin',
      templateRevision: 3,
      compose: 'c',
      installedAt: 'x',
      manuallyEdited: 1,
      pending: 0,
    };
    expect(stackRowOf(stored)).toEqual({
      name: 'tv',
      template: { source: 'builtin', id: 'jellyfin', revision: 3 },
      compose: 'c',
      installedAt: 'x',
      manuallyEdited: true,
      pending: false,
    });
    expect(stackRowOf({ ...stored, templateRevision: null, pending: 1 })).toMatchObject({
      template: null,
      pending: true,
    });
  });
});
