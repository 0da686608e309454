import { describe, expect, it } from 'vitest';
import { TB, disk, row, world } from '../test-support/fixtures.ts';
import {
  DISK_JOB_PHASES,
  type DiskJobParams,
  diskJobParams,
  interruptedMessage,
  jobConfMembers,
  judgeCheck,
  phaseSpec,
  settlement,
  slotSide,
  snapraidDiskName,
  stagingMountpoint,
  switchedRow,
} from './disk-job.ts';
import type { DiskUpgradePlan } from './types.ts';

const plan = (over: Partial<DiskUpgradePlan>): DiskUpgradePlan =>
  ({
    mountpoint: '/mnt/disk2',
    role: 'data',
    roleIndex: 2,
    previousDevice: '/dev/sdb',
    replacementDevice: '/dev/sdz',
    filesystem: 'xfs',
    newMountpoint: null,
    ...over,
  }) as DiskUpgradePlan;

function params(kind: DiskJobParams['kind']): DiskJobParams {
  const w = world();
  const parity = kind === 'upgrade_parity' || kind === 'replace_parity';
  const slot = w.rows.find((r) => r.mountpoint === (parity ? '/mnt/parity1' : '/mnt/disk2'))!;
  return diskJobParams({
    kind,
    slot,
    plan: plan(
      parity
        ? {
            mountpoint: '/mnt/parity1',
            role: 'parity',
            roleIndex: 1,
            previousDevice: '/dev/sdd',
            newMountpoint: kind === 'upgrade_parity' ? '/mnt/parity2' : null,
          }
        : {},
    ),
    byIdName: 'ata-NEW',
    newFsUuid: 'new-uuid',
  });
}

describe('disk job phases', () => {
  it('cancel only where the slot keeps its old disk (or is already on its new one): never format, freeze or switch', () => {
    for (const phases of Object.values(DISK_JOB_PHASES)) {
      expect(phases[0]).toEqual({ name: 'check', cancellable: false });
      for (const p of phases)
        if (['format', 'freeze', 'switch', 'permissions', 'check'].includes(p.name))
          expect(p.cancellable).toBe(false);
        else expect(p.cancellable).toBe(true);
    }
    expect(DISK_JOB_PHASES.upgrade_data.map((p) => p.name)).toEqual([
      'check',
      'presync',
      'freeze',
      'format',
      'copy',
      'verify',
      'switch',
      'sync',
    ]);
    expect(DISK_JOB_PHASES.replace_data.map((p) => p.name)).toEqual([
      'check',
      'format',
      'rebuild',
      'verify',
      'permissions',
      'switch',
      'sync',
    ]);
    expect(phaseSpec('upgrade_parity', 'rebuild')).toEqual({ name: 'rebuild', cancellable: true });
    expect(() => phaseSpec('replace_parity', 'copy')).toThrow(/no phase copy/);
  });
});

describe('what a disk job records before it writes', () => {
  it('the target mountpoint, the label and both filesystem UUIDs', () => {
    expect(params('upgrade_data')).toEqual({
      kind: 'upgrade_data',
      role: 'data',
      roleIndex: 2,
      mountpoint: '/mnt/disk2',
      targetMountpoint: '/mnt/disk2',
      device: '/dev/sdz',
      byIdName: 'ata-NEW',
      filesystem: 'xfs',
      label: 'disk2',
      previousDevice: '/dev/sdb',
      previousFsUuid: 'uuid-sdb',
      newFsUuid: 'new-uuid',
    });
    expect(params('upgrade_parity')).toMatchObject({ targetMountpoint: '/mnt/parity2', label: 'parity2' });
    expect(params('replace_parity')).toMatchObject({ targetMountpoint: '/mnt/parity1', label: 'parity1' });
    expect(stagingMountpoint('/mnt/disk12')).toBe('/mnt/.staging/disk12');
    expect([
      snapraidDiskName('data', 3),
      snapraidDiskName('parity', 1),
      snapraidDiskName('parity', 2),
    ]).toEqual(['d3', 'parity', '2-parity']);
  });

  it('its own SnapRAID members: the copy at the staging path, the new parity at its mountpoint, else none', () => {
    const w = world();
    const at = (kind: DiskJobParams['kind']) =>
      jobConfMembers(w.rows, params(kind))?.map((r) => `${r.role}${r.roleIndex}:${r.mountpoint}`);
    expect(at('upgrade_data')).toEqual(
      w.rows.map(
        (r) =>
          `${r.role}${r.roleIndex}:${r.mountpoint === '/mnt/disk2' ? '/mnt/.staging/disk2' : r.mountpoint}`,
      ),
    );
    expect(at('upgrade_parity')).toContain('parity1:/mnt/parity2');
    expect(at('replace_data')).toBeUndefined();
  });

  it('the switched row: the new disk identity at the target, the level kept', () => {
    const w = world();
    const p = params('upgrade_parity');
    const slot = w.rows.find((r) => r.mountpoint === '/mnt/parity1')!;
    const entry = disk('/dev/sdz', {
      sizeBytes: 20 * TB,
      wwn: '0x5000',
      serial: 'Z1',
      byIdName: 'wwn-0x5000',
    });
    expect(switchedRow(slot, p, entry)).toEqual({
      ...slot,
      device: '/dev/sdz',
      fsUuid: 'new-uuid',
      wwn: '0x5000',
      serial: 'Z1',
      byIdName: 'wwn-0x5000',
      weakIdentity: false,
      sizeBytes: 20 * TB,
      mountpoint: '/mnt/parity2',
      filesystem: 'xfs',
    });
  });
});

describe('what a check means', () => {
  const clean = { errors: 0, files: [], unrecoverable: [] };
  it('a copy or a new parity must check clean', () => {
    expect(judgeCheck(params('upgrade_data'), clean)).toEqual({ ok: true });
    const bad = judgeCheck(params('upgrade_data'), { errors: 2, files: ['d2/a', 'd2/b'], unrecoverable: [] });
    expect(bad).toMatchObject({ ok: false, code: 'copy_differs', files: ['d2/a', 'd2/b'] });
    expect(bad.ok === false && bad.message).toMatch(/\/mnt\/disk2 stays on \/dev\/sdb, unchanged/);
    expect(
      judgeCheck(params('upgrade_parity'), { errors: 1, files: ['d1/x'], unrecoverable: [] }),
    ).toMatchObject({
      ok: false,
      code: 'parity_check_failed',
    });
    expect(judgeCheck(params('replace_parity'), { errors: 0, files: [], unrecoverable: ['d1/y'] }).ok).toBe(
      false,
    );
  });

  it('a rebuilt data disk may miss exactly the files fix could not recover', () => {
    const p = params('replace_data');
    expect(judgeCheck(p, { errors: 1, files: ['d2/lost'], unrecoverable: ['d2/lost'] }, ['d2/lost'])).toEqual(
      {
        ok: true,
      },
    );
    expect(
      judgeCheck(p, { errors: 2, files: ['d2/lost', 'd2/bad'], unrecoverable: [] }, ['d2/lost']),
    ).toMatchObject({
      ok: false,
      code: 'rebuild_check_failed',
      files: ['d2/bad'],
    });
    // errors SnapRAID did not attribute to a file are never explained away
    expect(judgeCheck(p, { errors: 1, files: [], unrecoverable: [] }, []).ok).toBe(false);
  });
});

describe('after a restart: the slot on exactly one disk', () => {
  it('is on the new disk exactly when its row carries the new filesystem UUID', () => {
    const p = params('upgrade_data');
    const w = world();
    const slot = w.rows.find((r) => r.mountpoint === '/mnt/disk2')!;
    expect(slotSide(slot, p)).toBe('old');
    expect(slotSide({ ...slot, fsUuid: 'new-uuid' }, p)).toBe('new');
    expect(slotSide(undefined, p)).toBe('old');
  });

  it('keeps one disk at its mountpoint and drops the other from every path the job uses', () => {
    expect(settlement(params('upgrade_data'), 'old')).toEqual({
      side: 'old',
      keep: { fsUuid: 'uuid-sdb', at: '/mnt/disk2' },
      drop: { fsUuid: 'new-uuid', from: ['/mnt/disk2', '/mnt/.staging/disk2'] },
    });
    expect(settlement(params('upgrade_parity'), 'new')).toEqual({
      side: 'new',
      keep: { fsUuid: 'new-uuid', at: '/mnt/parity2' },
      drop: { fsUuid: 'uuid-sdd', from: ['/mnt/parity1', '/mnt/parity2'] },
    });
  });

  it('says where the slot is and what to do', () => {
    expect(interruptedMessage(params('upgrade_data'), 'old', 'copy')).toBe(
      'The service stopped during the disk upgrade of /mnt/disk2 (phase "copy"). /mnt/disk2 stays on its old disk /dev/sdb, which is mounted read-write again and was not changed; /dev/sdz was unmounted and is not part of the array. Send the same upgrade request again: it starts over.',
    );
    expect(interruptedMessage(params('replace_data'), 'old', 'rebuild')).toMatch(
      /\/mnt\/disk2 still records its failed disk \/dev\/sdb; .*Send the same replace request again/,
    );
    expect(interruptedMessage(params('replace_data'), 'new', 'sync')).toMatch(
      /Its switch had completed: \/mnt\/disk2 is on \/dev\/sdz\. Run a parity sync/,
    );
    expect(interruptedMessage(params('upgrade_parity'), 'new', 'switch')).toMatch(
      /\/mnt\/parity2 is on \/dev\/sdz\. The old disk \/dev\/sdd is unmounted and unchanged; keep it until you are satisfied\. Nothing is left to do\./,
    );
  });
});

describe('fixture sanity', () => {
  it('rows carry their fs UUIDs', () => {
    expect(row('data', 9, '/mnt/disk9', disk('/dev/sdq')).fsUuid).toBe('uuid-sdq');
  });
});
