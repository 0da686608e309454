import { type CommandRunner, isRefusal } from '@appliance/common';
import type { JobKind } from '@appliance/jobs';
import { describe, expect, it } from 'vitest';
import type { UpdatePorts } from '../operations/updates.ts';
import {
  CHECK_INTERVAL_MS,
  requireApt,
  systemRebootJob,
  type UpdateJobPorts,
  updateSchedules,
  updatesCheckJob,
  updatesConfigured,
} from './update-jobs.ts';

const NOW = new Date('2026-05-01T10:00:00.000Z');

/** Ports over plain state: a runner that resolves apt-get to `apt`, a fixed clock, recorded starts. */
function ports(options: {
  apt?: string | null;
  installed?: boolean;
  sandbox?: boolean;
  aptConfig?: string | null;
}) {
  const started: Array<{ type: string; target: string }> = [];
  let rebootAt: string | null = null;
  const runner: CommandRunner = {
    resolve: async () => (options.apt === undefined ? '/usr/bin/apt-get' : options.apt),
    run: async () => {
      throw new Error('nothing runs here');
    },
  };
  const p: UpdateJobPorts = {
    updates: {
      apt: { runner, aptConfig: options.aptConfig ?? null },
      clock: { now: () => NOW },
    } as unknown as UpdatePorts,
    runner,
    sandbox: options.sandbox ?? false,
    aptInstalled: () => options.installed ?? true,
    rebootAt: () => rebootAt,
    clearReboot: async () => {
      rebootAt = null;
    },
    startScheduled: async <P, R>(kind: JobKind<P, R>, _params: P, target: string) => {
      started.push({ type: kind.type, target });
      return `job-${started.length}`;
    },
    afterApply: async () => undefined,
  };
  return { p, started, schedule: (at: string | null) => (rebootAt = at) };
}

describe('whether updates are checked', () => {
  it('needs apt, and in a sandbox an apt configuration of its own', async () => {
    expect(updatesConfigured(ports({}).p)).toBe(true);
    expect(updatesConfigured(ports({ installed: false }).p)).toBe(false);
    expect(updatesConfigured(ports({ sandbox: true }).p)).toBe(false);
    expect(updatesConfigured(ports({ sandbox: true, aptConfig: '/lab/apt.conf' }).p)).toBe(true);
  });

  it('refuses not_configured without apt-get, and in a sandbox without its own apt configuration', async () => {
    const missing = await requireApt(ports({ apt: null }).p).catch((e: unknown) => e);
    expect(isRefusal(missing) && missing.code).toBe('not_configured');
    expect(isRefusal(missing) && missing.details).toMatchObject({ tool: 'apt-get' });
    const sandbox = await requireApt(ports({ sandbox: true }).p).catch((e: unknown) => e);
    expect(isRefusal(sandbox) && sandbox.message).toMatch(/sandbox/);
    await expect(requireApt(ports({ sandbox: true, aptConfig: '/lab/apt.conf' }).p)).resolves.toBeUndefined();
  });
});

describe('the schedules', () => {
  it('checks at once when it never ran, then a day after the last run; never when not configured', () => {
    const [check] = updateSchedules(ports({}).p);
    expect(check?.name).toBe('updates.check');
    expect(check?.nextDue(null)).toEqual(NOW);
    const last = new Date('2026-04-30T08:00:00.000Z');
    expect(check?.nextDue(last)).toEqual(new Date(last.getTime() + CHECK_INTERVAL_MS));
    const [off] = updateSchedules(ports({ installed: false }).p);
    expect(off?.nextDue(null)).toBeNull();
  });

  it('starts the check job by its definition', async () => {
    const t = ports({});
    const [check] = updateSchedules(t.p);
    expect(await check?.run(NOW)).toBe('job-1');
    expect(t.started).toEqual([{ type: updatesCheckJob.type, target: 'apt' }]);
  });

  it('reboots at the scheduled time, then forgets the time', async () => {
    const t = ports({});
    const reboot = updateSchedules(t.p)[1];
    expect(reboot?.nextDue(null)).toBeNull();
    t.schedule('2026-05-02T03:00:00.000Z');
    expect(reboot?.nextDue(null)).toEqual(new Date('2026-05-02T03:00:00.000Z'));
    await reboot?.run(NOW);
    expect(t.started).toEqual([{ type: systemRebootJob.type, target: 'system' }]);
    expect(reboot?.nextDue(null)).toBeNull();
  });
});
