import { describe, expect, it } from 'vitest';
import { summarizeDiff } from './diff.ts';
import { parseLogLine, unescapeField } from './log.ts';
import { ProgressTracker } from './progress.ts';
import { ScrubCollector } from './scrub.ts';
import { summarizeStatus } from './status.ts';

// Lines as snapraid 12 writes them with --gui --log ">&2" (recorded on loop disks here).
const DIFF = `version:none
msg:progress: Loading state from /mnt/state/snapraid.content...
scan:add:d2:g19
scan:add:d1:sub/x
scan:remove:d1:photos/2019\\dtrip/a.jpg
scan:update:d2:notes.txt
scan:move:d1:old/name:new/name
msg:fatal: WARNING! UUID is unsupported for disks: 'd1'
summary:equal:81
summary:added:2
summary:removed:1
summary:updated:1
summary:moved:1
summary:copied:0
summary:restored:0
summary:exit:diff`.split('\n');

describe('parseLogLine', () => {
  it('reads scan, summary, msg and run records and leaves human lines alone', () => {
    expect(parseLogLine('scan:add:d2:g19')).toEqual({ kind: 'scan', change: 'add', disk: 'd2', path: 'g19' });
    expect(parseLogLine('scan:move:d1:old/name:new/name')).toEqual({
      kind: 'scan',
      change: 'move',
      disk: 'd1',
      from: 'old/name',
      path: 'new/name',
    });
    expect(parseLogLine('summary:removed:60')).toEqual({ kind: 'summary', key: 'removed', values: ['60'] });
    expect(parseLogLine('msg:status: Everything OK')).toEqual({
      kind: 'msg',
      level: 'status',
      text: 'Everything OK',
    });
    expect(parseLogLine('run:pos:155:76:39845888:11:42:38:3:1')).toMatchObject({
      kind: 'run_pos',
      countPos: 76,
      countSize: 39845888,
      percent: 11,
      etaSeconds: 42,
      speedMBs: 38,
    });
    expect(parseLogLine('WARNING! Content file not found, trying with another copy...')).toBeNull();
    expect(parseLogLine('18%, 90 MB')).toBeNull();
    expect(parseLogLine('')).toBeNull();
  });
  it('undoes the escaping of a field (a colon is \\d)', () => {
    expect(unescapeField('2019\\dtrip\\\\x\\nz')).toBe('2019:trip\\x\nz');
    expect(parseLogLine('scan:remove:d1:photos/2019\\dtrip/a.jpg')).toMatchObject({
      path: 'photos/2019:trip/a.jpg',
    });
  });
  it('reads a scrub error record with the file it belongs to', () => {
    expect(parseLogLine('error:225:d1:big3: Data error at position 0, diff bits 73/128')).toEqual({
      kind: 'error',
      block: 225,
      disk: 'd1',
      path: 'big3',
      message: 'Data error at position 0, diff bits 73/128',
    });
  });
});

describe('summarizeDiff', () => {
  it('takes the counts from the summary and lists the paths per kind', () => {
    const d = summarizeDiff(DIFF.map(parseLogLine).filter((r) => r !== null));
    expect(d).toMatchObject({
      equal: 81,
      added: 2,
      removed: 1,
      updated: 1,
      moved: 1,
      copied: 0,
      changes: true,
    });
    expect(d.paths.removed).toEqual(['d1/photos/2019:trip/a.jpg']);
    expect(d.paths.added).toEqual(['d2/g19', 'd1/sub/x']);
  });
  it('counts every change but lists at most the limit', () => {
    const lines = Array.from({ length: 30 }, (_, i) => parseLogLine(`scan:remove:d1:f${i}`)!);
    const d = summarizeDiff([...lines, parseLogLine('summary:removed:30')!], 10);
    expect(d.removed).toBe(30);
    expect(d.paths.removed).toHaveLength(10);
  });
  it('an empty diff has no changes', () => {
    const d = summarizeDiff(
      ['summary:equal:5', 'summary:added:0', 'summary:exit:equal'].map((l) => parseLogLine(l)!),
    );
    expect(d.changes).toBe(false);
  });
});

describe('ProgressTracker', () => {
  it('reads snapraid’s progress lines: percent, MB, rate and ETA, then the closing line', () => {
    const t = new ProgressTracker();
    expect(t.addOutputLine('0%, 0 MB')).toEqual({
      percent: 0,
      bytesDone: 0,
      bytesTotal: null,
      etaSeconds: null,
      speedMBs: 0,
    });
    expect(t.addOutputLine('25%, 1000 MB, 120 MB/s, 480 stripe/s, CPU 14%, 1:05 ETA')).toEqual({
      percent: 25,
      bytesDone: 1_000_000_000,
      bytesTotal: 4_000_000_000,
      etaSeconds: 3900,
      speedMBs: 120,
    });
    expect(t.addOutputLine('100% completed, 3990 MB accessed in 0:33    ')).toEqual({
      percent: 100,
      bytesDone: 3_990_000_000,
      bytesTotal: 3_990_000_000,
      etaSeconds: 0,
      speedMBs: 120,
    });
    expect(t.addOutputLine('Saving state to /mnt/disk1/.snapraid.content...')).toBeNull();
  });
  it('the closing line of a loop a SIGINT stopped keeps its percent: not 100 %, bytes below the total', () => {
    // what snapraid 12 printed when stopped at block 151 of a 839 MB sync
    const t = new ProgressTracker();
    t.addOutputLine('8%, 73 MB');
    expect(t.addOutputLine('9% completed, 80 MB accessed in 0:00    ')).toEqual({
      percent: 9,
      bytesDone: 80_000_000,
      bytesTotal: 888_888_889,
      etaSeconds: null,
      speedMBs: 0,
    });
    expect(new ProgressTracker().addOutputLine('0% completed, 0 MB accessed in 0:00')).toMatchObject({
      percent: 0,
      bytesTotal: null,
    });
  });
  it('turns run records into percent, bytes and ETA; the end is 100 %', () => {
    const t = new ProgressTracker();
    t.add(parseLogLine('run:begin:0:1441:640')!);
    const p = t.add(parseLogLine('run:pos:155:320:100000000:50:30:38:3:1')!);
    expect(p).toEqual({
      percent: 50,
      bytesDone: 100000000,
      bytesTotal: 200000000,
      etaSeconds: 30,
      speedMBs: 38,
    });
    expect(t.add(parseLogLine('run:end')!)).toMatchObject({
      percent: 100,
      bytesTotal: 100000000,
      etaSeconds: 0,
    });
  });
});

describe('ScrubCollector', () => {
  it('names each damaged file once, with its block count, and keeps snapraid’s counts', () => {
    const c = new ScrubCollector();
    for (const l of [
      'error:225:d1:big3: Data error at position 0, diff bits 73/128',
      'error:226:d1:big3: Data error at position 1, diff bits 64/128',
      'error:900:d2:docs/a\\db.txt: Read error',
      'summary:error_file:0',
      'summary:error_io:1',
      'summary:error_data:2',
      'summary:exit:error',
    ])
      c.add(parseLogLine(l)!);
    const r = c.result();
    expect(r).toMatchObject({ dataErrors: 2, ioErrors: 1, fileErrors: 0, exit: 'error' });
    expect(r.files).toEqual([
      { disk: 'd1', path: 'big3', blocks: 2, message: 'Data error at position 0, diff bits 73/128' },
      { disk: 'd2', path: 'docs/a:b.txt', blocks: 1, message: 'Read error' },
    ]);
  });
});

describe('summarizeStatus', () => {
  it('finds the oldest scrub, the unscrubbed share, zero sub-second files and bad blocks', () => {
    const s = summarizeStatus(
      [
        'summary:zerosubsecond_file_count:3',
        'summary:has_unsynced:0',
        'summary:has_bad:1:225:227',
        'summary:file_count:101',
        'summary:parity_size:377749504',
        'info_time:1795632352:1:new',
        'info_time:1795632360:1440:scrubbed',
        'info_time:1795000000:0:scrubbed',
      ].map((l) => parseLogLine(l)!),
    );
    expect(s).toEqual({
      oldestScrubAt: new Date(1795632352 * 1000),
      unscrubbedPercent: 0.1,
      zeroSubsecondFiles: 3,
      unsynced: false,
      badBlocks: 3,
      filesCount: 101,
      parityBytes: 377749504,
    });
  });
});
