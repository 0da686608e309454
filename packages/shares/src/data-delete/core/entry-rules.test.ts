import { describe, expect, it } from 'vitest';
import {
  HardLinkTally,
  branchStopStatus,
  bytesFreedBy,
  entryAction,
  errorName,
  isSafeEntryName,
} from './entry-rules.ts';

describe('entry rules (05 §5)', () => {
  it('unlinks non-directories (links included), descends only into directories on the branch filesystem', () => {
    expect(entryAction({ isDirectory: false, dev: 9 }, 1)).toBe('unlink');
    expect(entryAction({ isDirectory: true, dev: 1 }, 1)).toBe('descend');
    expect(entryAction({ isDirectory: true, dev: 9 }, 1)).toBe('other_filesystem');
  });

  it('only plain names are used to build paths', () => {
    const b = (s: string) => Buffer.from(s);
    expect(isSafeEntryName(b('file.txt'))).toBe(true);
    expect(isSafeEntryName(b('...'))).toBe(true);
    expect(isSafeEntryName(Buffer.from([0xff, 0xfe]))).toBe(true);
    for (const bad of ['', '.', '..', 'a/b', '/', 'a\0b']) expect(isSafeEntryName(b(bad))).toBe(false);
  });

  it('stops a branch on a read-only or failing filesystem, not on a per-entry refusal', () => {
    expect(branchStopStatus('EROFS')).toBe('read_only');
    for (const code of ['EIO', 'ENODEV', 'ENXIO', 'ESTALE', 'EUCLEAN'])
      expect(branchStopStatus(code)).toBe('disk_error');
    for (const code of ['EPERM', 'EACCES', 'ENOTEMPTY', 'ELOOP', 'EBUSY', 'EMFILE', 'other_filesystem']) {
      expect(branchStopStatus(code)).toBeNull();
    }
  });

  it('names errors by errno', () => {
    expect(errorName(Object.assign(new Error('x'), { code: 'EPERM' }))).toBe('EPERM');
    expect(errorName(Object.assign(new Error('x'), { code: 'other_filesystem' }))).toBe('other_filesystem');
    expect(errorName(new Error('no code'))).toBe('EUNKNOWN');
    expect(errorName(Object.assign(new Error('x'), { code: 'ERR_SOMETHING' }))).toBe('EUNKNOWN');
  });

  it('frees the blocks of a file whose link count is 1', () => {
    expect(bytesFreedBy({ nlink: 1, blocks: 8 })).toBe(4096);
    expect(bytesFreedBy({ nlink: 2, blocks: 8 })).toBe(0);
  });

  it('the dry-run tally counts a multi-link inode once all its links were seen, across threads', () => {
    const a = new HardLinkTally();
    const b = new HardLinkTally();
    a.see(10, 2, 8); // both links inside the share, seen by two threads
    b.see(10, 2, 8);
    a.see(11, 3, 16); // a third link lives outside the share
    a.see(11, 3, 16);
    const merged = new HardLinkTally();
    merged.addRows(a.toRows());
    merged.addRows(b.toRows());
    expect(merged.bytesFreed()).toBe(4096);
    expect(a.bytesFreed()).toBe(0);
  });
});
