import { AppError, type CommandResult, type CommandRunner, type DiskInventoryEntry } from '@appliance/common';
import { type FormatStep, formatCommands, formatTarget } from '../core/commands.ts';
import type { ExternalFilesystem } from '../core/types.ts';
import type { Log } from '../ports.ts';

export type FormatRunResult =
  | { ok: true; fsUuid: string; mkfsMs: number }
  /** `mkfsDone`: the new filesystem exists (only the read-back failed). */
  | { ok: false; step: FormatStep; exitCode: number | null; mkfsDone: boolean };

export interface FormatRunDeps {
  runner: CommandRunner;
  log: Log;
  realpath(path: string): Promise<string>;
  /** Called before each command runs (progress: step `index + 1` of `count`). */
  onStep?(step: FormatStep, index: number, count: number): void;
}

/**
 * Right before the first write: every path the format writes through must still lead to the
 * confirmed disk (or its partition). Otherwise `409 disk_changed`, and nothing is written.
 */
export async function verifyTargets(
  deps: Pick<FormatRunDeps, 'realpath'>,
  disk: Pick<DiskInventoryEntry, 'device' | 'byIdName' | 'partitions'>,
): Promise<void> {
  const target = formatTarget(disk);
  const expected: Array<[string, string]> = [
    [target, disk.device],
    ...disk.partitions.map((p): [string, string] => [
      disk.byIdName ? `${target}-part${p.number}` : p.device,
      p.device,
    ]),
  ];
  const actual = await Promise.all(expected.map(([path]) => deps.realpath(path).catch(() => null)));
  const changed = expected.findIndex(([, device], i) => actual[i] !== device);
  if (changed >= 0) {
    throw new AppError(
      409,
      'disk_changed',
      `The disk behind ${disk.device} changed while the format was being checked: nothing was written. Check the disk list and try again.`,
      { device: disk.device },
    );
  }
}

/**
 * Runs the format commands of 07 §6.4 in order and reads the new UUID back. A failed step stops
 * the run; its stderr goes to the log only. Never aborted by a client disconnect.
 */
export async function runFormat(
  deps: FormatRunDeps,
  disk: Pick<DiskInventoryEntry, 'device' | 'byIdName' | 'partitions'>,
  filesystem: ExternalFilesystem,
  label: string,
): Promise<FormatRunResult> {
  let mkfsMs = 0;
  let mkfsDone = false;
  const commands = formatCommands(disk, filesystem, label);
  for (const [index, cmd] of commands.entries()) {
    deps.onStep?.(cmd.step, index, commands.length);
    const started = performance.now();
    let result: CommandResult;
    try {
      result = await deps.runner.run(cmd.command, cmd.args, {
        timeoutMs: cmd.timeoutMs,
        env: { LC_ALL: 'C' },
      });
    } catch (err) {
      // Before the first write nothing happened: the refusal (e.g. 501 for a vanished tool) stands.
      if (index === 0) throw err;
      deps.log.error('external disk format step could not run', {
        device: disk.device,
        step: cmd.step,
        command: cmd.command,
        error: err instanceof Error ? err.message : String(err),
      });
      return { ok: false, step: cmd.step, exitCode: null, mkfsDone };
    }
    const elapsed = performance.now() - started;
    const uuid = result.stdout.trim();
    const failed = result.exitCode !== 0 || result.timedOut || (cmd.step === 'read_uuid' && uuid === '');
    if (failed) {
      deps.log.error('external disk format step failed', {
        device: disk.device,
        step: cmd.step,
        command: cmd.command,
        args: cmd.args,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        stderr: result.stderr.slice(0, 2000),
      });
      return { ok: false, step: cmd.step, exitCode: result.timedOut ? null : result.exitCode, mkfsDone };
    }
    if (cmd.step === 'mkfs') {
      mkfsMs = elapsed;
      mkfsDone = true;
    }
    if (cmd.step === 'read_uuid') return { ok: true, fsUuid: uuid, mkfsMs };
  }
  throw new Error('format commands must end with the UUID read-back');
}
