/**
 * mergerfs runtime branch modes (`user.mergerfs.branches` on `<pool>/.mergerfs`):
 * `/mnt/disk1=RW:/mnt/disk2=RW`. A disk job sets its slot's branch `RO` (no new file, rename or
 * delete there through the pool; reads go on) and back to `RW` afterwards.
 */
export type BranchMode = 'RW' | 'RO' | 'NC';

/**
 * The branches value with `branch` in `mode`, or null when `branch` is not one of them. Other
 * branches and their modes (and any `,minfreespace` suffix) are kept as they are.
 */
export function withBranchMode(current: string, branch: string, mode: BranchMode): string | null {
  let found = false;
  const parts = current
    .trim()
    .split(':')
    .filter((x) => x !== '')
    .map((part) => {
      const eq = part.lastIndexOf('=');
      const path = eq >= 0 ? part.slice(0, eq) : part;
      if (path !== branch && path !== `${branch}/`) return part;
      found = true;
      const rest = eq >= 0 ? part.slice(eq + 1) : 'RW';
      const comma = rest.indexOf(',');
      return `${path}=${mode}${comma >= 0 ? rest.slice(comma) : ''}`;
    });
  return found ? parts.join(':') : null;
}

/** The mode `branch` has in the branches value, or null when it is not a branch. */
export function branchMode(current: string, branch: string): string | null {
  for (const part of current.trim().split(':')) {
    const eq = part.lastIndexOf('=');
    const path = eq >= 0 ? part.slice(0, eq) : part;
    if (path === branch || path === `${branch}/`) return eq >= 0 ? part.slice(eq + 1).split(',')[0]! : 'RW';
  }
  return null;
}

/**
 * The branches value with the branch `from` replaced by `to` at the same place, with the same mode
 * (and suffix), or null when `from` is not a branch. One value set through the control file is one
 * atomic change in mergerfs: no lookup ever sees the pool with neither path (issue 32: a data
 * upgrade's switch serves the slot from the new disk's staging mount while the slot's mountpoint
 * changes disks).
 */
export function replaceBranch(current: string, from: string, to: string): string | null {
  let found = false;
  const parts = current
    .trim()
    .split(':')
    .filter((x) => x !== '')
    .map((part) => {
      const eq = part.lastIndexOf('=');
      const path = eq >= 0 ? part.slice(0, eq) : part;
      if (path !== from && path !== `${from}/`) return part;
      found = true;
      return `${to}${eq >= 0 ? part.slice(eq) : ''}`;
    });
  return found ? parts.join(':') : null;
}

/**
 * The branches value after following which branches' disks are offline (issue 32): an offline
 * branch in `RW` becomes `NC` (mergerfs creates nothing there: its directory is the empty
 * mountpoint on the system disk), an online branch in `NC` becomes `RW` again. `RO` belongs to a
 * disk job and is left alone; so is a path that is not a branch. Null when nothing changes.
 */
export function offlineBranchModes(
  current: string,
  branches: readonly { branch: string; offline: boolean }[],
): { value: string; changed: { branch: string; from: string; to: BranchMode }[] } | null {
  let value = current.trim();
  const changed: { branch: string; from: string; to: BranchMode }[] = [];
  for (const b of branches) {
    const mode = branchMode(value, b.branch);
    const to: BranchMode | null =
      b.offline && mode === 'RW' ? 'NC' : !b.offline && mode === 'NC' ? 'RW' : null;
    if (mode === null || to === null) continue;
    value = withBranchMode(value, b.branch, to) ?? value;
    changed.push({ branch: b.branch, from: mode, to });
  }
  return changed.length ? { value, changed } : null;
}
