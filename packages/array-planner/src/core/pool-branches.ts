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
