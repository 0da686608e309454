/**
 * The restic adapter (Debian's `restic`, 0.14 or later): every call goes through the common
 * command runner (argument lists, `LC_ALL=C`, the fixed PATH). The repository password is written
 * to a 0600 file in a private directory for the life of the adapter and handed over as
 * `RESTIC_PASSWORD_FILE` — never on a command line, in a log or in a message. Long runs (backup,
 * restore, check, prune) have no timeout, stream their output line by line and stop cleanly on the
 * caller's signal (restic removes its lock on SIGINT).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type CommandResult, type CommandRunner, requireTools } from '@appliance/common';
import { nodeFromLs, type TreeNode } from '../core/drill.ts';
import { type BackupStatus, type BackupSummary, parseBackupLine, pickErrorLine } from '../core/progress.ts';

export interface ResticOptions {
  runner: CommandRunner;
  /** Real path of the repository folder. */
  repository: string;
  password: string;
  /** A private directory (0700) that holds the password file while the adapter is open. */
  tmpDir: string;
  /** restic's cache (speeds up every run), or null for none. */
  cacheDir: string | null;
  /** The time zone restic formats times in (TZ). */
  timeZone?: string;
}

export interface RunHandlers {
  signal?: AbortSignal;
  /** The restic process while it runs (jobs record it), then null. */
  onSpawn?: (pid: number | null) => void;
  /** Lines of restic's human output and stderr (not its JSON status lines). */
  onOutput?: (line: string) => void;
}

export interface ResticRun {
  exitCode: number;
  cancelled: boolean;
  timedOut: boolean;
  /** Why it failed, in restic's words (null when it succeeded or was cancelled). */
  errorLine: string | null;
}

export interface BackupRun extends ResticRun {
  summary: BackupSummary | null;
  /** Items restic could not read (exit 3: the snapshot was made without them). */
  itemErrors: { item: string | null; message: string }[];
}

export interface ResticSnapshot {
  id: string;
  shortId: string;
  time: string;
  paths: string[];
  tags: string[] | null;
  hostname: string;
  parent: string | null;
}

const QUICK_MS = 10 * 60_000;

export const requireRestic = (runner: CommandRunner): Promise<void> => requireTools(runner, ['restic']);

export interface Restic {
  readonly repository: string;
  /** The repository folder holds a restic `config` file. */
  exists(): Promise<boolean>;
  /** `restic init` (creates the folder and its parents). */
  init(): Promise<ResticRun>;
  /** `restic unlock` when the repository holds a lock (a run that was killed leaves one). */
  unlockStale(): Promise<void>;
  backup(
    input: { cwd: string; paths: readonly string[]; tags: readonly string[]; host: string },
    handlers: RunHandlers & { onStatus?: (s: BackupStatus) => void },
  ): Promise<BackupRun>;
  snapshots(): Promise<{ run: ResticRun; snapshots: ResticSnapshot[] }>;
  forget(ids: readonly string[], handlers?: RunHandlers): Promise<ResticRun>;
  prune(handlers?: RunHandlers): Promise<ResticRun>;
  /** Every node of a snapshot (paths relative to its root). */
  ls(snapshot: string, handlers?: RunHandlers): Promise<{ run: ResticRun; nodes: TreeNode[] }>;
  restore(
    input: { snapshot: string; target: string; include?: readonly string[]; verify?: boolean },
    handlers?: RunHandlers,
  ): Promise<ResticRun>;
  /** `restic check` reading the data packs of `subset` (`n/t`, `x%`). */
  check(subset: string | null, handlers?: RunHandlers): Promise<ResticRun>;
  /** Bytes and files a restore of the snapshot writes. */
  restoreSize(snapshot: string): Promise<{ bytes: number; files: number } | null>;
  /** Removes the password file. */
  close(): Promise<void>;
}

/** Opens a repository adapter: writes the password file (0600) for its life. */
export async function openRestic(options: ResticOptions): Promise<Restic> {
  await fs.mkdir(options.tmpDir, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(options.tmpDir, `restic-${randomBytes(8).toString('hex')}.pw`);
  await fs.writeFile(passwordFile, options.password, { mode: 0o600, flag: 'wx' });
  const env: Record<string, string> = {
    RESTIC_REPOSITORY: options.repository,
    RESTIC_PASSWORD_FILE: passwordFile,
    RESTIC_PROGRESS_FPS: '4',
    ...(options.timeZone ? { TZ: options.timeZone } : {}),
  };
  const cache = options.cacheDir ? ['--cache-dir', options.cacheDir] : ['--no-cache'];

  const exec = async (
    args: string[],
    o: RunHandlers & {
      long?: boolean;
      onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
      cwd?: string;
    } = {},
  ): Promise<{ result: CommandResult; run: ResticRun }> => {
    const tail: string[] = [];
    const result = await options.runner.run('restic', [...cache, ...args], {
      env,
      timeoutMs: o.long ? null : QUICK_MS,
      ...(o.cwd ? { cwd: o.cwd } : {}),
      ...(o.signal ? { signal: o.signal, killSignal: 'SIGINT' as const, killGraceMs: 30_000 } : {}),
      onSpawn: (pid) => o.onSpawn?.(pid),
      onLine: (line, stream) => {
        if (o.onLine) o.onLine(line, stream);
        if (stream === 'stderr' || !line.startsWith('{')) {
          tail.push(line);
          if (tail.length > 50) tail.shift();
          o.onOutput?.(line);
        }
      },
    });
    o.onSpawn?.(null);
    const cancelled = result.cancelled === true;
    const ok = result.exitCode === 0 && !result.timedOut && !cancelled;
    return {
      result,
      run: {
        exitCode: result.exitCode,
        cancelled,
        timedOut: result.timedOut,
        errorLine: ok || cancelled ? null : (pickErrorLine(tail) ?? `restic exited ${result.exitCode}`),
      },
    };
  };

  return {
    repository: options.repository,
    async exists() {
      const st = await fs.stat(path.join(options.repository, 'config')).catch(() => null);
      return st?.isFile() ?? false;
    },
    async init() {
      await fs.mkdir(path.dirname(options.repository), { recursive: true, mode: 0o700 });
      return (await exec(['init'])).run;
    },
    async unlockStale() {
      const locks = await fs.readdir(path.join(options.repository, 'locks')).catch(() => []);
      if (locks.length > 0) await exec(['unlock']);
    },
    async backup(input, handlers) {
      let summary: BackupSummary | null = null;
      const itemErrors: BackupRun['itemErrors'] = [];
      const { run } = await exec(
        [
          'backup',
          '--json',
          '--host',
          input.host,
          ...input.tags.flatMap((t) => ['--tag', t]),
          '--',
          ...input.paths,
        ],
        {
          ...handlers,
          long: true,
          cwd: input.cwd,
          onLine: (line, stream) => {
            if (stream !== 'stdout') return;
            const m = parseBackupLine(line);
            if (m?.type === 'status') handlers.onStatus?.(m);
            else if (m?.type === 'summary') summary = m;
            else if (m?.type === 'error') {
              itemErrors.push({ item: m.item, message: m.message });
              handlers.onOutput?.(`error: ${m.item ?? ''} ${m.message}`.trim());
            }
          },
        },
      );
      const firstItem = itemErrors[0];
      const errorLine =
        run.exitCode === 3 && firstItem
          ? `${itemErrors.length} item(s) could not be read, e.g. ${firstItem.item ?? ''}: ${firstItem.message}`
          : run.errorLine;
      return { ...run, errorLine, summary, itemErrors };
    },
    async snapshots() {
      const { result, run } = await exec(['snapshots', '--json', '--no-lock']);
      if (run.errorLine !== null) return { run, snapshots: [] };
      const list = JSON.parse(result.stdout || '[]') as Array<Record<string, unknown>>;
      return {
        run,
        snapshots: list.map((s) => ({
          id: String(s['id']),
          shortId: String(s['short_id'] ?? String(s['id']).slice(0, 8)),
          time: String(s['time']),
          paths: (s['paths'] as string[] | undefined) ?? [],
          tags: (s['tags'] as string[] | undefined) ?? null,
          hostname: String(s['hostname'] ?? ''),
          parent: typeof s['parent'] === 'string' ? s['parent'] : null,
        })),
      };
    },
    async forget(ids, handlers = {}) {
      if (ids.length === 0) return { exitCode: 0, cancelled: false, timedOut: false, errorLine: null };
      return (await exec(['forget', ...ids], handlers)).run;
    },
    async prune(handlers = {}) {
      return (await exec(['prune'], { ...handlers, long: true })).run;
    },
    async ls(snapshot, handlers = {}) {
      const nodes: TreeNode[] = [];
      const { run } = await exec(['ls', '--json', '--no-lock', snapshot], {
        ...handlers,
        long: true,
        onLine: (line, stream) => {
          if (stream !== 'stdout' || !line.startsWith('{')) return;
          try {
            const n = nodeFromLs(JSON.parse(line) as Record<string, unknown>);
            if (n && n.path !== '') nodes.push(n);
          } catch {
            // not a node line
          }
        },
      });
      return { run, nodes };
    },
    async restore(input, handlers = {}) {
      return (
        await exec(
          [
            'restore',
            input.snapshot,
            '--target',
            input.target,
            ...(input.include ?? []).flatMap((p) => ['--include', p]),
            ...(input.verify ? ['--verify'] : []),
          ],
          { ...handlers, long: true },
        )
      ).run;
    },
    async check(subset, handlers = {}) {
      return (
        await exec(['check', ...(subset ? ['--read-data-subset', subset] : [])], { ...handlers, long: true })
      ).run;
    },
    async restoreSize(snapshot) {
      const { result, run } = await exec([
        'stats',
        '--json',
        '--no-lock',
        '--mode',
        'restore-size',
        snapshot,
      ]);
      if (run.errorLine !== null) return null;
      const s = JSON.parse(result.stdout) as { total_size?: number; total_file_count?: number };
      return { bytes: s.total_size ?? 0, files: s.total_file_count ?? 0 };
    },
    async close() {
      await fs.rm(passwordFile, { force: true });
    },
  };
}
