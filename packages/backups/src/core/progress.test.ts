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
  it('after a summary Fatal line, says what restic said about the damaged pack or file (a drill failure)', () => {
    // restic 0.14 check --read-data on a repository with one damaged pack (restic.real.test.ts makes one)
    expect(
      pickErrorLine([
        'check snapshots, trees and blobs',
        '[0:00] 100.00%  1 / 1 snapshots',
        'read all data',
        'Pack ID does not match, want cb955148a915f980333a9c552abd9dc34c18aa547f45687b2aebed0eacff59cb, got bcc29000f6e2a5e47b4052deceff541cd12ca9336c3599a4c7ce156e6682a571',
        '[0:00] 100.00%  2 / 2 packs',
        'Fatal: repository contains errors',
      ]),
    ).toBe(
      'repository contains errors: Pack ID does not match, want cb955148a915f980333a9c552abd9dc34c18aa547f45687b2aebed0eacff59cb, got bcc29000f6e2a5e47b4052deceff541cd12ca9336c3599a4c7ce156e6682a571',
    );
    // restore --verify of a file whose blob is damaged
    expect(
      pickErrorLine([
        'restoring <Snapshot f5c3ef29 of [/tmp/src] at 2026-11-28 13:37:02 +0000 UTC by root@vm> to out',
        'ignoring error for /src/a.bin: ciphertext verification failed',
        'ignoring error for /src/a.bin: UtimesNano: no such file or directory',
        'Fatal: There were 2 errors',
      ]),
    ).toBe('There were 2 errors: ignoring error for /src/a.bin: ciphertext verification failed (and 1 more)');
    expect(pickErrorLine(['Fatal: repository contains errors'])).toBe('repository contains errors');
    // a header line ("error for tree …:") is passed over for the line under it that says what is wrong
    expect(
      pickErrorLine([
        'check snapshots, trees and blobs',
        'error for tree 802310bb:',
        '[0:00] 100.00%  1 / 1 snapshots',
        'decrypting blob 802310bb91ec81459e970ae2e69a731db89eeb295e6f23c4d5d2db6633437509 failed: ciphertext verification failed',
        'read all data',
        'Pack ID does not match, want 6063934cdf4a1268ccc01ee0cb3a13cdfc62ff1c3e25a49904bb7ee5b20ea1ca, got e006bd5b6edf0ddbfb60f1af01316c423f0fafe5fddc9169f021f3332fa75b7c',
        'Fatal: repository contains errors',
      ]),
    ).toBe(
      'repository contains errors: decrypting blob 802310bb91ec81459e970ae2e69a731db89eeb295e6f23c4d5d2db6633437509 failed: ciphertext verification failed (and 1 more)',
    );
  });
});
