import { describe, expect, it } from 'vitest';
import { branchMode, offlineBranchModes, replaceBranch, withBranchMode } from './pool-branches.ts';

describe('mergerfs branch modes', () => {
  const v = '/r/mnt/cache=RW:/r/mnt/disk1=RW:/r/mnt/disk2=NC,4G:/r/mnt/disk10=RW';
  it('sets one branch, keeps the others and a minfreespace suffix', () => {
    expect(withBranchMode(v, '/r/mnt/disk1', 'RO')).toBe(
      '/r/mnt/cache=RW:/r/mnt/disk1=RO:/r/mnt/disk2=NC,4G:/r/mnt/disk10=RW',
    );
    expect(withBranchMode(v, '/r/mnt/disk2', 'RW')).toBe(
      '/r/mnt/cache=RW:/r/mnt/disk1=RW:/r/mnt/disk2=RW,4G:/r/mnt/disk10=RW',
    );
    // disk1 is not disk10
    expect(branchMode(v, '/r/mnt/disk10')).toBe('RW');
    expect(withBranchMode('/a=RW:/b', '/b', 'RO')).toBe('/a=RW:/b=RO');
    expect(branchMode(v, '/r/mnt/disk2')).toBe('NC');
  });
  it('a path that is not a branch: null', () => {
    expect(withBranchMode(v, '/r/mnt/disk3', 'RO')).toBeNull();
    expect(branchMode(v, '/r/mnt/disk')).toBeNull();
  });
});

describe('replaceBranch (the switch of a data upgrade)', () => {
  const v = '/r/mnt/cache=RW:/r/mnt/disk1=RO:/r/mnt/disk10=RW';
  it('puts the new path in the same place with the same mode', () => {
    expect(replaceBranch(v, '/r/mnt/disk1', '/r/mnt/.staging/disk1')).toBe(
      '/r/mnt/cache=RW:/r/mnt/.staging/disk1=RO:/r/mnt/disk10=RW',
    );
    expect(replaceBranch('/a=NC,4G:/b', '/a', '/c')).toBe('/c=NC,4G:/b');
    expect(replaceBranch('/a=RW:/b', '/b', '/c')).toBe('/a=RW:/c');
  });
  it('a path that is not a branch: null (disk1 is not disk10)', () => {
    expect(replaceBranch(v, '/r/mnt/disk', '/x')).toBeNull();
    expect(replaceBranch('/r/mnt/disk10=RW', '/r/mnt/disk1', '/x')).toBeNull();
  });
});

describe('offlineBranchModes (the pool follows the disks watcher)', () => {
  const v = '/r/mnt/cache=RW:/r/mnt/disk1=RW:/r/mnt/disk2=RO:/r/mnt/disk3=NC';
  it('an offline RW branch takes no new files; an online NC branch is RW again; RO is a job’s', () => {
    expect(
      offlineBranchModes(v, [
        { branch: '/r/mnt/disk1', offline: true },
        { branch: '/r/mnt/disk2', offline: true },
        { branch: '/r/mnt/disk3', offline: false },
        { branch: '/r/mnt/cache', offline: false },
      ]),
    ).toEqual({
      value: '/r/mnt/cache=RW:/r/mnt/disk1=NC:/r/mnt/disk2=RO:/r/mnt/disk3=RW',
      changed: [
        { branch: '/r/mnt/disk1', from: 'RW', to: 'NC' },
        { branch: '/r/mnt/disk3', from: 'NC', to: 'RW' },
      ],
    });
  });
  it('nothing to change, or not a branch (parity): null', () => {
    expect(offlineBranchModes(v, [{ branch: '/r/mnt/disk3', offline: true }])).toBeNull();
    expect(offlineBranchModes(v, [{ branch: '/r/mnt/parity1', offline: true }])).toBeNull();
    expect(offlineBranchModes(v, [{ branch: '/r/mnt/cache', offline: false }])).toBeNull();
  });
});
