import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type CommandRunner, createCommandRunner } from '@appliance/common';
import { labTargetGuard } from '@appliance/lab';

export interface GuardOptions {
  /** Make every mkfs sleep this long first (two concurrent formats overlap for sure). */
  mkfsDelaySeconds?: number;
  /** Make the UUID read-back (`blkid -p -s UUID …`) fail with exit 1. */
  failUuidReadBack?: boolean;
}

export interface LoggedCommand {
  command: string;
  args: readonly string[];
  exitCode: number;
}

export interface GuardedRunner {
  runner: CommandRunner;
  /** Every command the code under test ran, in order. */
  log: LoggedCommand[];
  /** The PATH the runner uses (shims first). */
  searchPath: string;
  /** Change the injected faults of later commands (for a runner shared by a whole server). */
  setFaults(options: GuardOptions): Promise<void>;
  cleanup(): Promise<void>;
}

const WRITERS = ['wipefs', 'blockdev', 'mkfs.xfs', 'mkfs.ext4', 'mkfs.btrfs', 'mkfs.exfat'];

/**
 * The 03 §16 backstop: shims for every writing tool, first on PATH, that exit 97 for any target
 * but a loop device (or its partition) backed by an image inside `labDir`. The machine's real
 * disks cannot be written by a test, whatever the code under test decides. Faults (a slow mkfs,
 * a failing UUID read-back) are switched with files in the shim directory.
 */
export async function createGuardedRunner(
  labDir: string,
  options: GuardOptions = {},
): Promise<GuardedRunner> {
  const shimDir = await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-guard-'));
  const guard = (tool: string) => `#!/bin/sh
${labTargetGuard(labDir)}${tool.startsWith('mkfs.') ? `[ -f ${shimDir}/mkfs-delay ] && sleep "$(cat ${shimDir}/mkfs-delay)"` : ''}
exec /usr/sbin/${tool} "$@"
`;
  for (const tool of WRITERS) await fs.writeFile(path.join(shimDir, tool), guard(tool), { mode: 0o755 });
  await fs.writeFile(
    path.join(shimDir, 'blkid'),
    `#!/bin/sh\nif [ -f ${shimDir}/fail-uuid ]; then case " $* " in *" -s UUID "*) echo "blkid: injected failure" >&2; exit 1 ;; esac; fi\nexec /usr/sbin/blkid "$@"\n`,
    { mode: 0o755 },
  );
  const setFaults = async (faults: GuardOptions) => {
    const delay = path.join(shimDir, 'mkfs-delay');
    const failUuid = path.join(shimDir, 'fail-uuid');
    if (faults.mkfsDelaySeconds) await fs.writeFile(delay, String(faults.mkfsDelaySeconds));
    else await fs.rm(delay, { force: true });
    if (faults.failUuidReadBack) await fs.writeFile(failUuid, '');
    else await fs.rm(failUuid, { force: true });
  };
  await setFaults(options);
  const searchPath = `${shimDir}:/usr/sbin:/usr/bin:/sbin:/bin`;
  const inner = createCommandRunner({ path: searchPath });
  const log: LoggedCommand[] = [];
  return {
    log,
    searchPath,
    setFaults,
    runner: {
      resolve: (command) => inner.resolve(command),
      async run(command, args, opts) {
        const result = await inner.run(command, args, opts);
        log.push({ command, args, exitCode: result.exitCode });
        return result;
      },
    },
    cleanup: () => fs.rm(shimDir, { recursive: true, force: true }),
  };
}

/** Commands in the log that write a disk. */
export const writes = (log: readonly LoggedCommand[]): LoggedCommand[] =>
  log.filter((c) => c.command === 'wipefs' || c.command.startsWith('mkfs') || c.command === 'blockdev');
