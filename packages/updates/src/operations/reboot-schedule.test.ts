import { fixedClock, isRefusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { cancelReboot, type RebootSchedule, rebootStatus, scheduleReboot } from './reboot-schedule.ts';

function ports() {
  let schedule: RebootSchedule = { rebootAt: null, rebootBy: null };
  const audits: string[] = [];
  return {
    audits,
    schedule: () => schedule,
    ports: {
      clock: fixedClock('2026-05-01T10:00:00.000Z'),
      read: () => schedule,
      write: async (next: RebootSchedule, audit: { operation: string }) => {
        schedule = next;
        audits.push(audit.operation);
      },
    },
  };
}

describe('the scheduled reboot', () => {
  it('is set for a time within 30 days and audited; cancelled once, then nothing to do', async () => {
    const t = ports();
    await scheduleReboot(t.ports, '2026-05-02T03:00:00Z', 'alice');
    expect(t.schedule()).toEqual({ rebootAt: '2026-05-02T03:00:00.000Z', rebootBy: 'alice' });
    await cancelReboot(t.ports);
    await cancelReboot(t.ports);
    expect(t.schedule()).toEqual({ rebootAt: null, rebootBy: null });
    expect(t.audits).toEqual(['system.reboot.schedule', 'system.reboot.cancel']);
  });

  it('none means now; beyond 30 days is refused bad_request on `at`, nothing written', async () => {
    const t = ports();
    await scheduleReboot(t.ports, undefined, 'local');
    expect(t.schedule().rebootAt).toBe('2026-05-01T10:00:00.000Z');
    const err = await scheduleReboot(t.ports, '2026-07-01T00:00:00Z', 'local').catch((e: unknown) => e);
    expect(isRefusal(err) && [err.code, err.details]).toEqual([
      'bad_request',
      { issues: [{ path: 'at', message: expect.any(String) }] },
    ]);
    expect(t.audits).toEqual(['system.reboot.schedule']);
  });

  it('shows the held condition’s packages and reason with the schedule', () => {
    expect(rebootStatus({ rebootAt: null, rebootBy: null }, null)).toEqual({
      required: false,
      packages: [],
      reason: null,
      scheduledAt: null,
      scheduledBy: null,
    });
    const held = { value: 'linux-image-amd64, libc6', message: 'a new kernel was installed' };
    expect(rebootStatus({ rebootAt: '2026-05-02T03:00:00.000Z', rebootBy: 'alice' }, held)).toMatchObject({
      required: true,
      packages: ['linux-image-amd64', 'libc6'],
      reason: 'a new kernel was installed',
    });
  });
});
