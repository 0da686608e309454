/**
 * Copies a whole disk's tree with rsync, keeping everything SnapRAID and the pool care about:
 * `-aHAX --numeric-ids` (owners by number, modes, times, hard links, ACLs, extended attributes,
 * symlinks as links, devices and specials), with `--info=progress2 --no-inc-recursive` streamed
 * line by line into the pure parser (one figure for the whole copy). Started under
 * `setpriv --pdeathsig KILL`, so a service killed outright does not leave a copy running behind
 * a restarted one; cancelled with SIGTERM (rsync stops and removes its partial file).
 */
import { type CommandRunner, missingTool, requireTools } from '@appliance/common';
import { type CopyProgress, isRsyncError, parseRsyncProgress } from '../core/rsync-progress.ts';

export interface CopyHandlers {
  signal?: AbortSignal;
  onProgress?: (p: CopyProgress) => void;
  /** rsync's other lines (errors, warnings). */
  onOutput?: (line: string) => void;
  onSpawn?: (pid: number) => void;
}

export interface CopyResult {
  exitCode: number;
  cancelled: boolean;
  /** rsync's last error line when it failed, else null. */
  errorLine: string | null;
  progress: CopyProgress | null;
}

/** rsync and setpriv are installed: `501 not_configured` naming the Debian package otherwise. */
export async function requireCopyTools(runner: CommandRunner): Promise<void> {
  await requireTools(runner, ['rsync', 'setpriv']);
}

/** The rsync arguments of a whole-tree copy from `from` into `to` (both real directories). */
export const rsyncArgs = (from: string, to: string): string[] => [
  '-aHAX',
  '--numeric-ids',
  '--info=progress2',
  '--no-inc-recursive',
  `${from.replace(/\/+$/, '')}/`,
  `${to.replace(/\/+$/, '')}/`,
];

export async function copyTree(
  runner: CommandRunner,
  o: { from: string; to: string },
  h: CopyHandlers = {},
): Promise<CopyResult> {
  const rsync = await runner.resolve('rsync');
  if (rsync === null) throw missingTool('rsync');
  let last: CopyProgress | null = null;
  const errors: string[] = [];
  const r = await runner.run('setpriv', ['--pdeathsig', 'KILL', '--', rsync, ...rsyncArgs(o.from, o.to)], {
    timeoutMs: null,
    ...(h.signal ? { signal: h.signal } : {}),
    killSignal: 'SIGTERM',
    ...(h.onSpawn ? { onSpawn: h.onSpawn } : {}),
    onLine: (line) => {
      const p = parseRsyncProgress(line);
      if (p) {
        last = p;
        h.onProgress?.(p);
        return;
      }
      if (isRsyncError(line)) errors.push(line.trim());
      h.onOutput?.(line);
    },
  });
  const cancelled = r.cancelled === true;
  return {
    exitCode: r.exitCode,
    cancelled,
    errorLine:
      cancelled || r.exitCode === 0
        ? null
        : (errors.at(-1) ?? r.stderr.trim().split('\n').at(-1) ?? `rsync exited with status ${r.exitCode}`),
    progress: last,
  };
}
