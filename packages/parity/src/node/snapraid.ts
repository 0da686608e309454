/**
 * Runs SnapRAID (the injected adapter of this package): every command goes through the common
 * command runner (fixed environment, argument list), with `--log ">&2"` so its machine-readable
 * records (stderr) and its progress lines (stdout) stream line by line into the pure parsers of
 * `../core`. No timeout: a
 * sync may run for hours; it is cancelled with SIGINT, on which SnapRAID saves its state and stops
 * cleanly (the next sync resumes). Each run is started under `setpriv --pdeathsig INT`, so a
 * service killed outright still stops SnapRAID cleanly instead of leaving it running.
 */
import { type CommandRunner, missingTool, requireTools } from '@appliance/common';
import { type DiffSummary, DiffCollector } from '../core/diff.ts';
import { type LogRecord, isErrorMessage, parseLogLine } from '../core/log.ts';
import { type Progress, ProgressTracker } from '../core/progress.ts';
import { ScrubCollector, type ScrubFindings } from '../core/scrub.ts';
import { type ArrayStatus, summarizeStatus } from '../core/status.ts';

export interface SnapraidDeps {
  runner: CommandRunner;
  /** The real path of snapraid.conf. */
  configFile: string;
}

export interface RunHandlers {
  signal?: AbortSignal;
  /** Every parsed log record. */
  onRecord?: (record: LogRecord) => void;
  /** Progress of the block loop (sync, scrub, fix, check). */
  onProgress?: (progress: Progress) => void;
  /** SnapRAID's lines meant for a person (its stdout, and stderr lines that are not log records). */
  onOutput?: (line: string) => void;
  /** The process id once started (a job records it, to find a leftover after a crash). */
  onSpawn?: (pid: number) => void;
}

export interface SnapraidRun {
  command: string;
  exitCode: number;
  /**
   * SnapRAID stopped before its work was done because of `signal` (it said "Stopping for
   * interruption", or the signal ended it). A cancel that arrived after it had finished its work
   * (while it saved its state, say) leaves this false: the run completed.
   */
  cancelled: boolean;
  /** SnapRAID's own error line when it failed (its last fatal or error message), else null. */
  errorLine: string | null;
  progress: Progress | null;
}

export interface Snapraid {
  /** `snapraid diff`: exit 0 (no changes) or 2 (a sync has something to do) are both success. */
  diff(h?: RunHandlers): Promise<{ run: SnapraidRun; diff: DiffSummary }>;
  sync(h?: RunHandlers): Promise<{ run: SnapraidRun; diff: DiffSummary }>;
  scrub(
    o: { percent: number; olderThanDays: number },
    h?: RunHandlers,
  ): Promise<{ run: SnapraidRun; findings: ScrubFindings }>;
  status(h?: RunHandlers): Promise<{ run: SnapraidRun; status: ArrayStatus }>;
  touch(h?: RunHandlers): Promise<{ run: SnapraidRun }>;
  /** `snapraid fix -d <disk>`: rebuild a disk's files from parity. */
  fix(o: { disk: string }, h?: RunHandlers): Promise<{ run: SnapraidRun; findings: FixFindings }>;
  /**
   * `snapraid check [-a] [-d <disk>]`: verify a disk's files (or the whole array without `disk`)
   * against parity and the hashes; `auditOnly` (`-a`) checks the files' hashes only, not parity.
   */
  check(
    o: { disk?: string; auditOnly?: boolean },
    h?: RunHandlers,
  ): Promise<{ run: SnapraidRun; findings: FixFindings }>;
}

/** Per-file outcome of `fix` or `check` (from the log's `status:` and `error:` records). */
export interface FixFindings extends ScrubFindings {
  recovered: string[];
  unrecoverable: string[];
}

/** Whether SnapRAID (and setpriv, which stops it with the service) is installed: 501 otherwise. */
export async function requireSnapraid(runner: CommandRunner): Promise<void> {
  await requireTools(runner, ['snapraid', 'setpriv']);
}

/**
 * SnapRAID's messages when a SIGINT stopped its block loop (`Stopping for interruption at block
 * 151`) or came before it (`Not starting for interruption`).
 */
const INTERRUPTED = /^(?:Stopping|Not starting) for interruption\b/;

export function createSnapraid(deps: SnapraidDeps): Snapraid {
  const run = async (
    command: string,
    args: string[],
    h: RunHandlers,
    okExit: (code: number) => boolean,
  ): Promise<SnapraidRun> => {
    const snapraid = await deps.runner.resolve('snapraid');
    if (snapraid === null) throw missingTool('snapraid');
    const tracker = new ProgressTracker();
    const errors: string[] = [];
    const others: string[] = [];
    let interrupted = false;
    const result = await deps.runner.run(
      'setpriv',
      ['--pdeathsig', 'INT', '--', snapraid, '-c', deps.configFile, '--log', '>&2', command, ...args],
      {
        timeoutMs: null,
        ...(h.signal ? { signal: h.signal } : {}),
        killSignal: 'SIGINT',
        killGraceMs: 120_000,
        ...(h.onSpawn ? { onSpawn: h.onSpawn } : {}),
        onLine: (line, stream) => {
          const record = stream === 'stderr' ? parseLogLine(line) : null;
          if (record === null) {
            if (stream === 'stderr') others.push(line);
            const p = stream === 'stdout' ? tracker.addOutputLine(line) : null;
            if (p) h.onProgress?.(p);
            else h.onOutput?.(line);
            return;
          }
          if (record.kind === 'msg' && INTERRUPTED.test(record.text)) interrupted = true;
          else if (isErrorMessage(record) && record.kind === 'msg') errors.push(record.text.trim());
          const p = tracker.add(record);
          if (p) h.onProgress?.(p);
          h.onRecord?.(record);
        },
      },
    );
    // SnapRAID exits 0 after a SIGINT too (it stops at a block boundary and saves its state), and
    // `diff` finishes its scan whatever: only its own word (or a death by the signal) says it
    // stopped early
    const cancelled = result.cancelled === true && (interrupted || !okExit(result.exitCode));
    const failed = !cancelled && !okExit(result.exitCode);
    return {
      command,
      exitCode: result.exitCode,
      cancelled,
      errorLine: failed ? pickErrorLine(errors, others, result.exitCode) : null,
      progress: tracker.current,
    };
  };

  const withDiff = async (command: string, h: RunHandlers, ok: (c: number) => boolean) => {
    const diff = new DiffCollector();
    const r = await run(
      command,
      [],
      {
        ...h,
        onRecord: (rec) => {
          diff.add(rec);
          h.onRecord?.(rec);
        },
      },
      ok,
    );
    return { run: r, diff: diff.result() };
  };

  const withFix = async (command: string, args: string[], h: RunHandlers) => {
    const scrub = new ScrubCollector();
    const recovered: string[] = [];
    const unrecoverable: string[] = [];
    const r = await run(
      command,
      args,
      {
        ...h,
        onRecord: (rec) => {
          scrub.add(rec);
          if (rec.kind === 'fixed') {
            const p = `${rec.disk}/${rec.path}`;
            if (rec.state === 'recovered') recovered.push(p);
            else if (rec.state === 'unrecoverable') unrecoverable.push(p);
          }
          h.onRecord?.(rec);
        },
      },
      (c) => c === 0,
    );
    return { run: r, findings: { ...scrub.result(), recovered, unrecoverable } };
  };

  return {
    diff: (h = {}) => withDiff('diff', h, (c) => c === 0 || c === 2),
    sync: (h = {}) => withDiff('sync', h, (c) => c === 0),
    async scrub(o, h = {}) {
      const scrub = new ScrubCollector();
      const r = await run(
        'scrub',
        ['-p', String(o.percent), '-o', String(o.olderThanDays)],
        {
          ...h,
          onRecord: (rec) => {
            scrub.add(rec);
            h.onRecord?.(rec);
          },
        },
        // exit 1 with data errors is a finding, not a failure of the scrub itself
        (c) => c === 0 || (c === 1 && scrub.errors > 0),
      );
      return { run: r, findings: scrub.result() };
    },
    async status(h = {}) {
      const records: LogRecord[] = [];
      const r = await run(
        'status',
        [],
        {
          ...h,
          onRecord: (rec) => {
            records.push(rec);
            h.onRecord?.(rec);
          },
        },
        (c) => c === 0,
      );
      return { run: r, status: summarizeStatus(records) };
    },
    async touch(h = {}) {
      return { run: await run('touch', [], h, (c) => c === 0) };
    },
    fix: (o, h = {}) => withFix('fix', ['-d', o.disk], h),
    check: (o, h = {}) =>
      withFix('check', [...(o.auditOnly ? ['-a'] : []), ...(o.disk ? ['-d', o.disk] : [])], h),
  };
}

/**
 * The line that says why SnapRAID failed: its last fatal/error message that is not one of its
 * routine warnings, else the last line it wrote to stderr, else the exit code.
 */
export function pickErrorLine(
  errors: readonly string[],
  stderr: readonly string[],
  exitCode: number,
): string {
  const meaningful = errors.filter((e) => e !== '' && !/^WARNING!|^\.|^,/.test(e));
  const last = meaningful.at(-1) ?? stderr.filter((l) => l.trim() !== '').at(-1);
  return last?.trim() ?? `snapraid exited with status ${exitCode}`;
}
