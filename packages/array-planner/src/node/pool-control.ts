/**
 * The running mergerfs pool's branch modes, through its control file `<pool>/.mergerfs`
 * (`getfattr`/`setfattr`, Debian package `attr`). A disk job sets its slot's branch `RO` while it
 * works on the slot, so the pool writes nothing there (reads go on), and `RW` again at the end.
 */
import path from 'node:path';
import { type CommandRunner, type HostPaths, expectSuccess } from '@appliance/common';
import { type BranchMode, branchMode, withBranchMode } from '../core/pool-branches.ts';
import { isPoolMounted } from './pool-state.ts';

const ATTR = 'user.mergerfs.branches';

/** The pool's branches value, or null when no pool is mounted. */
export async function readBranches(runner: CommandRunner, paths: HostPaths): Promise<string | null> {
  if (!(await isPoolMounted(paths))) return null;
  const r = expectSuccess(
    await runner.run('getfattr', ['--only-values', '-n', ATTR, path.join(paths.userPool, '.mergerfs')], {
      timeoutMs: 10_000,
    }),
  );
  return r.stdout.trim();
}

/**
 * Sets the branch of a logical mountpoint to `mode`. Returns the mode it had, or null when there
 * is no pool or the mountpoint is not one of its branches (nothing to do).
 */
export async function setBranchMode(
  runner: CommandRunner,
  paths: HostPaths,
  logical: string,
  mode: BranchMode,
): Promise<string | null> {
  const current = await readBranches(runner, paths);
  if (current === null) return null;
  const branch = paths.real(logical);
  const before = branchMode(current, branch);
  const next = withBranchMode(current, branch, mode);
  if (before === null || next === null) return null;
  if (before !== mode)
    expectSuccess(
      await runner.run('setfattr', ['-n', ATTR, '-v', next, path.join(paths.userPool, '.mergerfs')], {
        timeoutMs: 10_000,
      }),
    );
  return before;
}
