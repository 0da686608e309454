import { describe, expect, it } from 'vitest';
import { diskIdentityColumns, diskIdentityOf } from './disk-identity.ts';

const row = {
  id: 7,
  role: 'data',
  device: '/dev/sdb1',
  filesystem: 'xfs',
  fsUuid: 'u-1',
  wwn: null,
  serial: 'S1',
  byIdName: 'ata-S1',
  weakIdentity: 1,
  sizeBytes: 1000,
  mountpoint: '/mnt/disk1',
};

describe('the disk identity codec', () => {
  it('reads the identity columns of a row in column order, weak identity as a boolean', () => {
    const identity = diskIdentityOf(row);
    expect(identity).toEqual({
      device: '/dev/sdb1',
      filesystem: 'xfs',
      fsUuid: 'u-1',
      wwn: null,
      serial: 'S1',
      byIdName: 'ata-S1',
      weakIdentity: true,
      sizeBytes: 1000,
    });
    expect(Object.keys(identity)).toEqual([
      'device',
      'filesystem',
      'fsUuid',
      'wwn',
      'serial',
      'byIdName',
      'weakIdentity',
      'sizeBytes',
    ]);
    expect(diskIdentityOf({ ...row, weakIdentity: 0 }).weakIdentity).toBe(false);
  });

  it('writes a record back as the same columns, weak identity as 0/1', () => {
    expect(diskIdentityColumns(diskIdentityOf(row))).toEqual({ ...diskIdentityOf(row), weakIdentity: 1 });
    expect(
      diskIdentityColumns({ ...diskIdentityOf(row), weakIdentity: false, mountpoint: 'x' }),
    ).not.toHaveProperty('mountpoint');
    expect(diskIdentityColumns({ ...diskIdentityOf(row), weakIdentity: false }).weakIdentity).toBe(0);
  });
});
