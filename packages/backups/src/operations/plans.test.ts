import { describe, expect, it } from 'vitest';
import { type PlanSpec, DEFAULT_DRILL, DEFAULT_RETENTION } from '../core/plan.ts';
import { backupDrillJob, backupRestoreJob, backupRunJob } from '../jobs/kinds.ts';
import { memoryPlanAdminPorts } from '../test-support/plan-admin.ts';
import {
  changedFields,
  createPlan,
  deletePlan,
  listPlanViews,
  planFacts,
  planViewOf,
  startPlanJob,
  updatePlan,
} from './plans.ts';

const NOW = '2026-03-02T10:00:00.000Z';

const spec = (over: Partial<PlanSpec> = {}): PlanSpec => ({
  enabled: true,
  destination: 'usb1',
  configuration: true,
  stacks: [{ name: 'photos', keepRunning: false }],
  shares: ['media'],
  schedule: { kind: 'daily', time: '03:30' },
  retention: DEFAULT_RETENTION,
  drill: DEFAULT_DRILL,
  ...over,
});

/** Ports of an installation with the stack `photos`, the share `media` and the backup disk `usb1`. */
function installation() {
  const ports = memoryPlanAdminPorts({ now: NOW });
  ports.installation.stacks.push({ name: 'photos', pending: false }, { name: 'wiki', pending: true });
  ports.installation.shares.push('media');
  ports.installation.disks.push(
    { label: 'usb1', backupDestination: true },
    { label: 'spare', backupDestination: false },
  );
  ports.attached.add('usb1');
  return ports;
}

const refusalOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    const e = err as { code: string; message: string; details?: Record<string, unknown> };
    return { code: e.code, message: e.message, details: e.details };
  }
  throw new Error('expected a refusal');
};

describe('planFacts', () => {
  it('leaves out stacks whose install is pending and keeps only label and role of a disk', async () => {
    const ports = installation();
    ports.installation.disks.push({ label: 'x', backupDestination: true, device: '/dev/sdz' } as never);
    const facts = await planFacts(ports.facts);
    expect(facts.stacks).toEqual(['photos']);
    expect(facts.destinations.at(-1)).toEqual({ label: 'x', backupDestination: true });
    expect(facts.passphraseSet).toBe(true);
  });
});

describe('createPlan', () => {
  it('stores the plan with a sealed generated password, audits it and answers the view', async () => {
    const ports = installation();
    const view = await createPlan(ports, 'nightly', spec());
    expect(ports.stored.get('nightly')?.sealedPassword?.toString()).toBe(
      `sealed:${Buffer.alloc(32, 7).toString('base64url')}`,
    );
    expect(view).not.toHaveProperty('sealedPassword');
    expect(view).toMatchObject({
      name: 'nightly',
      hasPassword: true,
      repository: '/mnt/disks/usb1/appliance-backups/nightly/repository',
      latestConfigArchive: '/mnt/disks/usb1/appliance-backups/nightly/appliance-config-latest.tar.zst',
      createdAt: NOW,
      status: {
        lastRun: null,
        lastSuccessAt: null,
        nextRunAt: '2026-03-03T03:30:00.000Z',
        lastDrill: null,
        nextDrillAt: null,
        stale: false,
      },
    });
    expect(ports.audits).toEqual([{ operation: 'backups.plan.create', target: 'nightly', details: spec() }]);
  });

  it('refuses what the installation does not have, and writes nothing', async () => {
    const ports = installation();
    expect(
      (await refusalOf(createPlan(ports, 'a', spec({ stacks: [{ name: 'wiki', keepRunning: false }] }))))
        .code,
    ).toBe('stack_not_found');
    expect((await refusalOf(createPlan(ports, 'a', spec({ destination: 'spare' })))).code).toBe(
      'not_a_backup_destination',
    );
    ports.installation.passphraseSet = false;
    expect((await refusalOf(createPlan(ports, 'a', spec()))).code).toBe('backup_passphrase_required');
    expect(ports.stored.size).toBe(0);
    expect(ports.audits).toEqual([]);
  });

  it('refuses a second plan of the same name and keeps the first', async () => {
    const ports = installation();
    await createPlan(ports, 'nightly', spec());
    const r = await refusalOf(createPlan(ports, 'nightly', spec({ shares: [] })));
    expect(r).toMatchObject({ code: 'backup_plan_exists', details: { plan: 'nightly' } });
    expect(ports.stored.get('nightly')?.shares).toEqual(['media']);
    expect(ports.audits).toHaveLength(1);
  });
});

describe('planView', () => {
  it('shows the last run and drill, the next drill after a success, and staleness after two periods', async () => {
    const ports = installation();
    await createPlan(ports, 'nightly', spec());
    Object.assign(ports.states.get('nightly')!, {
      lastRunJobId: 'j1',
      lastRunState: null,
      lastRunAt: NOW,
      firstSuccessAt: NOW,
      lastSuccessAt: NOW,
      lastDrillJobId: 'd1',
      lastDrillState: 'failed',
      lastDrillAt: NOW,
    });
    expect(planViewOf(ports, 'nightly').status).toMatchObject({
      lastRun: { jobId: 'j1', state: 'unknown', at: NOW },
      lastDrill: { jobId: 'd1', state: 'failed', at: NOW },
      nextDrillAt: '2026-04-01T05:00:00.000Z',
      stale: false,
    });
    ports.setNow('2026-03-04T10:00:01.000Z');
    expect(listPlanViews(ports).map((p) => [p.name, p.status.stale])).toEqual([['nightly', true]]);
  });

  it('answers backup_plan_not_found for an unknown plan', () => {
    expect(() => planViewOf(installation(), 'none')).toThrow(
      expect.objectContaining({ code: 'backup_plan_not_found' }),
    );
  });
});

describe('updatePlan', () => {
  it('replaces the settings, keeps the password and audits the names of the changed fields', async () => {
    const ports = installation();
    await createPlan(ports, 'nightly', spec());
    const sealed = ports.stored.get('nightly')?.sealedPassword;
    ports.setNow('2026-03-02T11:00:00.000Z');
    const view = await updatePlan(
      ports,
      'nightly',
      spec({ shares: [], schedule: { kind: 'daily', time: '04:00' } }),
    );
    expect(view.updatedAt).toBe('2026-03-02T11:00:00.000Z');
    expect(view.shares).toEqual([]);
    expect(ports.stored.get('nightly')?.sealedPassword).toBe(sealed);
    expect(ports.audits.at(-1)).toEqual({
      operation: 'backups.plan.update',
      target: 'nightly',
      details: { changed: ['shares', 'schedule'] },
    });
  });

  it('refuses an unknown plan before its checks, and a bad change without writing', async () => {
    const ports = installation();
    expect((await refusalOf(updatePlan(ports, 'none', spec({ destination: 'nope' })))).code).toBe(
      'backup_plan_not_found',
    );
    await createPlan(ports, 'nightly', spec());
    expect((await refusalOf(updatePlan(ports, 'nightly', spec({ destination: 'nope' })))).code).toBe(
      'external_disk_not_found',
    );
    expect(ports.stored.get('nightly')?.destination).toBe('usb1');
    expect(ports.audits).toHaveLength(1);
  });

  it('changedFields compares values, not identity', () => {
    expect(changedFields(spec(), spec())).toEqual([]);
    expect(changedFields(spec(), spec({ retention: { daily: 1, weekly: 4, monthly: 6 } }))).toEqual([
      'retention',
    ]);
  });
});

describe('deletePlan', () => {
  it('needs the typed confirmation', async () => {
    const ports = installation();
    await createPlan(ports, 'nightly', spec());
    const r = await refusalOf(deletePlan(ports, 'nightly', 'DELETE Nightly'));
    expect(r.code).toBe('confirmation_required');
    expect(r.details).toEqual({ expected: 'DELETE nightly' });
    expect(r.message).toContain('forgets its repository password');
    expect(ports.stored.has('nightly')).toBe(true);
  });

  it('refuses while a job of the plan runs, naming the job', async () => {
    const ports = installation();
    await createPlan(ports, 'nightly', spec());
    ports.runningJobs.push(
      { id: 'r0', type: backupRunJob.type, target: 'other', params: { plan: 'other' } } as never,
      { id: 'd7', type: backupDrillJob.type, target: 'nightly', params: { plan: 'nightly' } } as never,
    );
    const r = await refusalOf(deletePlan(ports, 'nightly', 'DELETE nightly'));
    expect(r).toMatchObject({
      code: 'job_running',
      details: { jobId: 'd7', type: 'backup.drill', target: 'nightly' },
    });
    expect(ports.stored.has('nightly')).toBe(true);
  });

  it('deletes plan and state, audits it, and ends its staleness condition', async () => {
    const ports = installation();
    await createPlan(ports, 'nightly', spec());
    ports.conditions.set('backup:stale:nightly', {});
    ports.runningJobs.push({
      id: 'x',
      type: backupRestoreJob.type,
      target: 'share:media',
      params: { plan: 'other' },
    } as never);
    await deletePlan(ports, 'nightly', 'DELETE nightly');
    expect(ports.stored.size).toBe(0);
    expect(ports.states.size).toBe(0);
    expect(ports.audits.at(-1)).toEqual({ operation: 'backups.plan.delete', target: 'nightly' });
    expect(ports.conditions.size).toBe(0);
  });
});

describe('startPlanJob', () => {
  it('starts a run or a drill of the plan on its destination, with its audit operation', async () => {
    const ports = installation();
    await createPlan(ports, 'nightly', spec());
    const view = await startPlanJob(ports, 'nightly', backupRunJob);
    await startPlanJob(ports, 'nightly', backupDrillJob);
    expect(view.id).toBe('job-1');
    expect(ports.started).toEqual([
      {
        type: 'backup.run',
        params: { plan: 'nightly', destination: 'usb1' },
        target: 'nightly',
        auditOperation: 'backups.run',
      },
      {
        type: 'backup.drill',
        params: { plan: 'nightly', destination: 'usb1' },
        target: 'nightly',
        auditOperation: 'backups.drill',
      },
    ]);
  });

  it('refuses a plan whose password is not known here, or whose disk is not attached', async () => {
    const ports = installation();
    await createPlan(ports, 'nightly', spec());
    ports.attached.clear();
    expect((await refusalOf(startPlanJob(ports, 'nightly', backupRunJob))).code).toBe(
      'backup_destination_missing',
    );
    ports.stored.get('nightly')!.sealedPassword = null;
    expect((await refusalOf(startPlanJob(ports, 'nightly', backupRunJob))).code).toBe(
      'repository_password_missing',
    );
    expect((await refusalOf(startPlanJob(ports, 'none', backupRunJob))).code).toBe('backup_plan_not_found');
    expect(ports.started).toEqual([]);
  });
});
