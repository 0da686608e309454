import { describe, expect, it } from 'vitest';
import { branchMode, withBranchMode } from './pool-branches.ts';

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
