/**
 * System (boot) disk detection, failing closed (03 §2.4). Pure: the reader gathers the block graph
 * and the system mounts; this decides which whole disks they rest on.
 */

/** One `/sys/class/block` entry as far as the walk needs it. */
export interface BlockNode {
  name: string;
  partition: boolean;
  /** Whole-disk name of a partition. */
  parent: string | null;
  slaves: string[];
}

/** A mount (or swap area) the system needs, with the block name it was mapped to. */
export interface SystemMount {
  /** `/`, `/boot`, …, the state directory's mount, or `[swap]`. */
  target: string;
  source: string;
  fsType: string;
  /** major ≠ 0, or source under `/dev/`. */
  blockBacked: boolean;
  /** Kernel name of the mounted node, null when it could not be mapped. */
  block: string | null;
}

export type BootResolution =
  | { ok: true; disks: Set<string> }
  | { ok: false; rootSource: string; reason: string };

/** Targets whose backing disks are system disks (real host paths, never the root prefix). */
export const SYSTEM_TARGETS = ['/', '/boot', '/boot/efi', '/efi', '/usr', '/var'] as const;

const MAX_DEPTH = 16;

/**
 * Walks down from a block name: `slaves/` recurse (LVM, LUKS, md), a partition goes to its parent,
 * anything else is a whole disk that must be listed. Returns the leaves, or null when any branch
 * ends somewhere unlisted (loop, nbd, unknown node).
 */
export function leafDisks(
  name: string,
  graph: ReadonlyMap<string, BlockNode>,
  listedWholeDisks: ReadonlySet<string>,
  depth = 0,
): Set<string> | null {
  if (depth > MAX_DEPTH) return null;
  const node = graph.get(name);
  if (!node) return null;
  if (node.slaves.length > 0) {
    const out = new Set<string>();
    for (const slave of node.slaves) {
      const leaves = leafDisks(slave, graph, listedWholeDisks, depth + 1);
      if (leaves === null) return null;
      for (const l of leaves) out.add(l);
    }
    return out;
  }
  if (node.partition) {
    return node.parent === null ? null : leafDisks(node.parent, graph, listedWholeDisks, depth + 1);
  }
  return listedWholeDisks.has(name) ? new Set([name]) : null;
}

export function resolveSystemDisks(
  mounts: readonly SystemMount[],
  graph: ReadonlyMap<string, BlockNode>,
  listedWholeDisks: ReadonlySet<string>,
): BootResolution {
  const root = mounts.find((m) => m.target === '/');
  if (!root) return { ok: false, rootSource: '(none)', reason: 'no mount at / was found in mountinfo' };
  const fail = (reason: string): BootResolution => ({ ok: false, rootSource: root.source, reason });
  if (!root.blockBacked) return fail(`/ is a ${root.fsType} filesystem, not a block device`);
  const disks = new Set<string>();
  for (const m of mounts) {
    if (!m.blockBacked) continue;
    const leaves = m.block === null ? null : leafDisks(m.block, graph, listedWholeDisks);
    if (leaves === null || leaves.size === 0) {
      return fail(`${m.target} (${m.source}) does not rest on a listed whole disk`);
    }
    for (const l of leaves) disks.add(l);
  }
  return { ok: true, disks };
}
