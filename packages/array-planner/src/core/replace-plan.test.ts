import { describe, expect, it } from 'vitest';
import { TB, disk, inventory, row, world } from '../test-support/fixtures.ts';
import { planReplace } from './replace-plan.ts';
import { checkReplaceRequest } from './replace-request.ts';
import { checkUpgradeRequest } from './upgrade-request.ts';

describe('planReplace (03 §11)', () => {
  it('rebuilds a missing data disk: same mountpoint, rebuild command, 6 steps, warnings', () => {
    const w = world();
    const inv = inventory([w.sda, w.sdc, w.sdd, w.sdz]); // /mnt/disk2 (sdb) is gone
    const r = planReplace({
      request: { mountpoint: '/mnt/disk2', device: '/dev/sdz', filesystem: 'ext4' },
      rows: w.rows,
      inventory: inv,
      externals: [],
    });
    expect(r.plan).toMatchObject({
      role: 'data',
      previousDevice: '/dev/sdb',
      previousSizeBytes: 4 * TB,
      previousUsedBytes: null,
      newMountpoint: null,
      filesystem: 'ext4',
      rebuildCommand: 'snapraid fix -d d2',
      confirmation: 'ERASE /dev/sdz',
      estimate: { bytesToCopy: 4 * TB, basis: 'disk_size', passes: 2 },
    });
    expect(r.plan?.steps).toEqual([
      'Hold syncs; the pool keeps serving the other disks and puts no new file on /mnt/disk2.',
      'Erase /dev/sdz and format it as ext4.',
      'Mount /dev/sdz at /mnt/disk2.',
      'Run "snapraid fix -d d2" to rebuild the files of /mnt/disk2 from parity, then restore their owners, permissions and extended attributes as of the last sync.',
      'Run "snapraid check -d d2" to confirm the rebuilt files.',
      'Record /dev/sdz as the disk of /mnt/disk2, let the pool write to it again and run "snapraid sync".',
    ]);
    expect(r.plan?.warnings.map((x) => x.code)).toEqual(['single_parity', 'files_since_last_sync']);
  });

  it('rebuilds a missing parity disk: 4 steps, snapraid fix -d parity / 2-parity', () => {
    const w = world();
    const big = disk('/dev/sdy', { sizeBytes: 16 * TB, filesystem: 'ntfs', label: 'win' });
    const r = planReplace({
      request: { mountpoint: '/mnt/parity1', device: '/dev/sdy' },
      rows: w.rows,
      inventory: inventory([w.sda, w.sdb, w.sdc, big]),
      externals: [],
    });
    expect(r.plan?.rebuildCommand).toBe('snapraid fix -d parity');
    expect(r.plan?.steps).toEqual([
      'Erase /dev/sdy, format it as xfs and mount it at /mnt/parity1.',
      'Run "snapraid fix -d parity" to recreate the parity file.',
      'Run "snapraid check" against the new parity disk.',
      'Record /dev/sdy as the disk of /mnt/parity1.',
    ]);
    expect(r.plan?.warnings.map((x) => x.code)).toEqual(['single_parity', 'replacement_not_blank']);
    const p2 = disk('/dev/sde', { fsUuid: 'uuid-sde', sizeBytes: 16 * TB, wwn: '0x2' });
    const rows = [...w.rows, row('parity', 2, '/mnt/parity2', p2)];
    const r2 = planReplace({
      request: { mountpoint: '/mnt/parity2', device: '/dev/sdy' },
      rows,
      inventory: inventory([w.sda, w.sdb, w.sdc, w.sdd, big]),
      externals: [],
    });
    expect(r2.plan?.rebuildCommand).toBe('snapraid fix -d 2-parity');
  });

  it('slot disk still attached → 409 slot_disk_present; smaller than the recorded size → replacement_too_small', () => {
    const w = world();
    const present = planReplace({
      request: { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
      rows: w.rows,
      inventory: inventory(w.disks),
      externals: [],
    });
    expect(present.refusal).toMatchObject({
      status: 409,
      code: 'slot_disk_present',
      details: { mountpoint: '/mnt/disk2', device: '/dev/sdb' },
    });
    expect(present.refusal?.message).toContain('upgrade/plan');
    const small = disk('/dev/sdv', { sizeBytes: 3 * TB });
    const r = planReplace({
      request: { mountpoint: '/mnt/disk2', device: '/dev/sdv' },
      rows: w.rows,
      inventory: inventory([w.sda, w.sdc, w.sdd, small]),
      externals: [],
    });
    expect(r.refusal).toMatchObject({
      status: 400,
      code: 'invalid_plan',
      details: { reason: 'replacement_too_small', requiredBytes: 4 * TB },
    });
  });
});

describe('checkUpgradeRequest (03 §12)', () => {
  const base = () => {
    const w = world();
    const big = disk('/dev/sdy', { sizeBytes: 20 * TB });
    return { w, inv: inventory([...w.disks, big]) };
  };

  it('accepts a data upgrade with the exact phrase (no array state is asked for, 03 §12 step 4 revised)', () => {
    const { w, inv } = base();
    const r = checkUpgradeRequest({
      request: { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
      rows: w.rows,
      inventory: inv,
      externals: [],
      confirmation: 'ERASE /dev/sdz',
      runningDiskJobId: null,
    });
    expect(r.plan?.jobType).toBe('disk_upgrade_data');
  });

  it('refuses in order: plan checks, new_mountpoint_mismatch, confirmation, running job', () => {
    const { w, inv } = base();
    const ask = (over: Record<string, unknown>) =>
      checkUpgradeRequest({
        request: { mountpoint: '/mnt/parity1', device: '/dev/sdy' },
        rows: w.rows,
        inventory: inv,
        externals: [],
        confirmation: 'ERASE /dev/sdy',
        newMountpoint: '/mnt/parity2',
        runningDiskJobId: null,
        ...over,
      }).refusal;
    expect(ask({ request: { mountpoint: '/mnt/disk9', device: '/dev/sdy' } })).toMatchObject({
      code: 'disk_slot_not_found',
    });
    expect(ask({ newMountpoint: '/mnt/parity1', confirmation: 'nope' })).toMatchObject({
      details: { reason: 'new_mountpoint_mismatch', expected: '/mnt/parity2' },
    });
    expect(ask({ newMountpoint: undefined })).toMatchObject({
      details: { reason: 'new_mountpoint_mismatch' },
    });
    expect(ask({ confirmation: 'ERASE /dev/sdy ' })).toMatchObject({
      status: 409,
      code: 'confirmation_required',
      details: { expected: 'ERASE /dev/sdy' },
    });
    expect(ask({ confirmation: 'erase /dev/sdy' })).toMatchObject({ code: 'confirmation_required' });
    expect(ask({ runningDiskJobId: 'job-1' })).toMatchObject({
      status: 409,
      code: 'disk_job_running',
      details: { jobId: 'job-1' },
    });
    expect(ask({})).toBeUndefined();
    const data = checkUpgradeRequest({
      request: { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
      rows: w.rows,
      inventory: inv,
      externals: [],
      confirmation: 'ERASE /dev/sdz',
      newMountpoint: '/mnt/parity2',
      runningDiskJobId: null,
    });
    expect(data.refusal).toMatchObject({ details: { reason: 'new_mountpoint_mismatch', expected: null } });
    // a data slot is upgraded with the array started too (the pool keeps serving it, issue 21)
    const started = checkUpgradeRequest({
      request: { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
      rows: w.rows,
      inventory: inv,
      externals: [],
      confirmation: 'ERASE /dev/sdz',
      runningDiskJobId: null,
    });
    expect(started.plan?.jobType).toBe('disk_upgrade_data');
  });
});

describe('checkReplaceRequest (issue 21)', () => {
  const w = world();
  const inv = inventory([w.sda, w.sdc, w.sdd, w.sdz]); // /mnt/disk2 (sdb) is gone
  const ask = (over: Record<string, unknown> = {}) =>
    checkReplaceRequest({
      request: { mountpoint: '/mnt/disk2', device: '/dev/sdz' },
      rows: w.rows,
      inventory: inv,
      externals: [],
      confirmation: 'ERASE /dev/sdz',
      runningDiskJobId: null,
      strayEntries: [],
      ...over,
    });

  it("accepts the plan's values with the exact phrase", () => {
    expect(ask().plan).toMatchObject({
      jobType: 'disk_replace_data',
      plan: { rebuildCommand: 'snapraid fix -d d2' },
    });
  });

  it("refuses in order: the plan's checks, the phrase, another disk job, files in the empty mountpoint", () => {
    expect(ask({ inventory: inventory([w.sda, w.sdb, w.sdc, w.sdd, w.sdz]) }).refusal).toMatchObject({
      status: 409,
      code: 'slot_disk_present',
    });
    expect(ask({ confirmation: 'ERASE /dev/sdz ', runningDiskJobId: 'j' }).refusal).toMatchObject({
      code: 'confirmation_required',
      details: { expected: 'ERASE /dev/sdz' },
    });
    expect(ask({ confirmation: null }).refusal?.code).toBe('confirmation_required');
    expect(ask({ runningDiskJobId: 'j', strayEntries: ['x'] }).refusal).toMatchObject({
      status: 409,
      code: 'disk_job_running',
      details: { jobId: 'j' },
    });
    const stray = ask({ strayEntries: ['a.txt', 'b', 'c', 'd'] }).refusal;
    expect(stray).toMatchObject({
      status: 409,
      code: 'mountpoint_not_empty',
      details: { mountpoint: '/mnt/disk2' },
    });
    expect(stray?.message).toMatch(
      /^\/mnt\/disk2 holds files although no disk is mounted there \(a\.txt, b, c, …\)/,
    );
  });
});
