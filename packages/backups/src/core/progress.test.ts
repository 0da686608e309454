import { describe, expect, it } from 'vitest';
import { jobProgress, parseBackupLine, pickErrorLine } from './progress.ts';

describe('restic backup --json', () => {
  it('reads status lines into job figures (percent, bytes, files, rate, ETA)', () => {
    const m = parseBackupLine(
      '{"message_type":"status","seconds_elapsed":4,"seconds_remaining":12,"percent_done":0.25,"total_files":300,"files_done":75,"total_bytes":400000000,"bytes_done":100000000,"current_files":["/f13"]}',
    );
    expect(m?.type).toBe('status');
    expect(m && m.type === 'status' && jobProgress(m)).toEqual({
      percent: 25,
      bytesDone: 100_000_000,
      bytesTotal: 400_000_000,
      etaSeconds: 12,
      files: 75,
      filesTotal: 300,
      rate: 25_000_000,
    });
  });
  it('reads the summary and item errors; ignores other lines', () => {
    expect(
      parseBackupLine(
        '{"message_type":"summary","files_new":3,"files_changed":1,"files_unmodified":9,"data_added":2078,"total_files_processed":13,"total_bytes_processed":7000,"total_duration":0.29,"snapshot_id":"1312651c"}',
      ),
    ).toEqual({
      type: 'summary',
      snapshotId: '1312651c',
      filesNew: 3,
      filesChanged: 1,
      filesUnmodified: 9,
      dataAdded: 2078,
      totalFiles: 13,
      totalBytes: 7000,
      durationSeconds: 0.29,
    });
    expect(parseBackupLine('{"message_type":"error","error":{},"during":"archival","item":"/x"}')).toEqual({
      type: 'error',
      message: 'archival failed',
      item: '/x',
    });
    expect(parseBackupLine('repository 1234 opened')).toBeNull();
    expect(parseBackupLine('{not json')).toBeNull();
  });
  it('picks restic’s Fatal line, else the last line that reads as an error', () => {
    expect(
      pickErrorLine([
        'open repository',
        'Fatal: unable to open config file: stat /mnt/disks/b/config: no such file or directory',
        'Is there a repository at the following location?',
      ]),
    ).toBe('unable to open config file: stat /mnt/disks/b/config: no such file or directory');
    expect(pickErrorLine(['ok', 'Save(<data/abc>) returned error: write: input/output error', 'bye'])).toBe(
      'Save(<data/abc>) returned error: write: input/output error',
    );
    expect(pickErrorLine(['{"message_type":"status"}'])).toBeNull();
  });
});
