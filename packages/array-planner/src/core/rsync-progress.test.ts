import { describe, expect, it } from 'vitest';
import { isRsyncError, parseRsyncProgress } from './rsync-progress.ts';

describe('rsync --info=progress2', () => {
  it('reads bytes, percent, the remaining time while a file is in flight, and the files left', () => {
    expect(parseRsyncProgress('    536,870,912  25%   95.12MB/s    0:00:16  ')).toEqual({
      percent: 25,
      bytesDone: 536870912,
      bytesTotal: 2147483648,
      etaSeconds: 16,
      filesLeft: null,
      filesTotal: null,
    });
    // at a file's end rsync prints the elapsed time: no ETA then
    expect(parseRsyncProgress('     12,000,000  20%  190.21MB/s    0:00:03 (xfr#6, to-chk=24/31)')).toEqual({
      percent: 20,
      bytesDone: 12000000,
      bytesTotal: 60000000,
      etaSeconds: null,
      filesLeft: 24,
      filesTotal: 31,
    });
    expect(parseRsyncProgress('          0   0%    0.00kB/s    0:00:00  ')?.bytesTotal).toBeNull();
    expect(parseRsyncProgress(' 1,000 100%  1.00kB/s  1:02:03 (xfr#1, ir-chk=0/9)')?.filesTotal).toBe(9);
    // a hard link's second name counts in rsync's percent but is not copied: nothing left is 100 %
    expect(
      parseRsyncProgress('     25,165,824  49%   95.00MB/s    0:00:00 (xfr#1, to-chk=0/5)'),
    ).toMatchObject({
      percent: 100,
      bytesTotal: 25165824,
    });
  });

  it('anything else is not progress; error lines are recognised', () => {
    for (const line of ['sending incremental file list', 'sent 1,234 bytes  received 35 bytes', '', '25%'])
      expect(parseRsyncProgress(line)).toBeNull();
    expect(isRsyncError('rsync: [sender] change_dir "/x" failed: No such file or directory (2)')).toBe(true);
    expect(isRsyncError('rsync error: some files/attrs were not transferred (code 23)')).toBe(true);
    expect(isRsyncError('file.txt')).toBe(false);
  });
});
