/**
 * The running mergerfs pool's branches, through its control file `<pool>/.mergerfs`
 * (`getfattr`/`setfattr`, Debian package `attr`). A disk job sets its slot's branch `RO` while it
 * works on the slot, so the pool writes nothing there (reads go on), and `RW` again at the end; the
 * disks watcher sets an offline disk's branch `NC` (no new file lands in its empty mountpoint on
 * the system disk) and `RW` again when it is back; a data upgrade's switch swaps the slot's branch
 * for the new disk's staging mount and back.
 *
 * Every change reads the whole value and writes it back; the changes of one process are made one
 * at a time (a queue per pool), so a watcher cycle never writes back a value a disk job has just
 * changed.
 */
import path from 'node:path';
import { type CommandRunner, type HostPaths, expectSuccess } from '@appliance/common';
import {
  type BranchMode,
  branchMode,
  offlineBranchModes,
  replaceBranch,
  withBranchMode,
} from '../core/pool-branches.ts';
import { isPoolMounted } from './pool-state.ts';

const ATTR = 'user.mergerfs.branches';

const queues = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier change of the same pool (in this process) has finished. */
function serialized<T>(pool: string, fn: () => Promise<T>): Promise<T> {
  const before = queues.get(pool) ?? Promise.resolve();
  const next = before.then(fn, fn);
  const tail = next.catch(() => undefined);
  queues.set(pool, tail);
  void tail.then(() => {
    if (queues.get(pool) === tail) queues.delete(pool);
  });
  return next;
}

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

async function writeBranches(runner: CommandRunner, paths: HostPaths, value: string): Promise<void> {
  expectSuccess(
    await runner.run('setfattr', ['-n', ATTR, '-v', value, path.join(paths.userPool, '.mergerfs')], {
      timeoutMs: 10_000,
    }),
  );
}

/**
 * Sets the branch of a logical mountpoint to `mode`. Returns the mode it had, or null when there
 * is no pool or the mountpoint is not one of its branches (nothing to do).
 */
export function setBranchMode(
  runner: CommandRunner,
  paths: HostPaths,
  logical: string,
  mode: BranchMode,
): Promise<string | null> {
  return serialized(paths.userPool, async () => {
    const current = await readBranches(runner, paths);
    if (current === null) return null;
    const branch = paths.real(logical);
    const before = branchMode(current, branch);
    const next = withBranchMode(current, branch, mode);
    if (before === null || next === null) return null;
    if (before !== mode) await writeBranches(runner, paths, next);
    return before;
  });
}

/**
 * Replaces the branch `from` (logical) by `to` at the same place and with the same mode, in one
 * change. Returns false when there is no pool or `from` is not a branch (nothing done).
 */
export function swapBranch(
  runner: CommandRunner,
  paths: HostPaths,
  from: string,
  to: string,
): Promise<boolean> {
  return serialized(paths.userPool, async () => {
    const current = await readBranches(runner, paths);
    if (current === null) return false;
    const next = replaceBranch(current, paths.real(from), paths.real(to));
    if (next === null) return false;
    await writeBranches(runner, paths, next);
    return true;
  });
}

/**
 * The pool follows which branch disks are offline (the core's `offlineBranchModes`): offline `RW`
 * → `NC`, back online `NC` → `RW`, `RO` (a disk job's) untouched. Returns what changed (logical
 * mountpoints), empty when nothing did or no pool is mounted.
 */
export function followOfflineBranches(
  runner: CommandRunner,
  paths: HostPaths,
  slots: readonly { mountpoint: string; offline: boolean }[],
): Promise<{ mountpoint: string; from: string; to: BranchMode }[]> {
  return serialized(paths.userPool, async () => {
    const current = await readBranches(runner, paths);
    if (current === null) return [];
    const logicalOf = new Map(slots.map((s) => [paths.real(s.mountpoint), s.mountpoint]));
    const next = offlineBranchModes(
      current,
      slots.map((s) => ({ branch: paths.real(s.mountpoint), offline: s.offline })),
    );
    if (next === null) return [];
    await writeBranches(runner, paths, next.value);
    return next.changed.map((c) => ({
      mountpoint: logicalOf.get(c.branch) ?? c.branch,
      from: c.from,
      to: c.to,
    }));
  });
}
