/**
 * The mover's decisions, file by file: skipped (open for writing, already on a data disk, fits
 * nowhere) or moved to the data disk the share's create policy picks among the disks that keep
 * `minfreespace` free after the file. Pure: the adapter measures, this decides.
 */
import type {
  CacheEntry,
  CreatePolicy,
  MovePlan,
  MoveUnit,
  PlannedMove,
  Skipped,
  TargetDisk,
} from './model.ts';

export interface PlanInput {
  share: string;
  policy: CreatePolicy;
  /** Bytes every data disk must still have free after the file is written. */
  minFreeBytes: number;
  disks: readonly TargetDisk[];
  /** Every entry below the share's cache directory (directories included). */
  entries: readonly CacheEntry[];
  /** Paths (relative to the share) some process holds open for writing. */
  openForWriting: ReadonlySet<string>;
  /**
   * Indexes of the disks where this path (a file or a directory, relative to the share) exists
   * now. `''` (the share's top directory) counts as present everywhere.
   */
  presentOn(rel: string): readonly number[];
  /**
   * Indexes of the disks where a directory on this path (relative to the share) is something else
   * (a symlink, a file): nothing may be written below it there, rsync would replace it or follow it.
   * `''` is the share's directory on the disk. Optional (none).
   */
  notDirOn?(rel: string): readonly number[];
}

const BLOCK = 4096;

/** What a file takes on a disk, rounded up to whole blocks, plus one block of metadata. */
export const footprint = (size: number): number => Math.ceil(size / BLOCK) * BLOCK + BLOCK;

export const parentOf = (rel: string): string => {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
};

/** Files, symlinks and empty directories, hard-linked names grouped, in path order. */
export function moveUnits(entries: readonly CacheEntry[]): MoveUnit[] {
  const units: MoveUnit[] = [];
  const byInode = new Map<string, MoveUnit>();
  const sorted = [...entries].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  for (const e of sorted) {
    if (e.kind === 'dir' && !e.empty) continue;
    if (e.kind === 'file' && e.nlink > 1) {
      const u = byInode.get(e.inode);
      if (u) {
        u.rels.push(e.rel);
        continue;
      }
      const unit: MoveUnit = { rels: [e.rel], kind: e.kind, size: e.size };
      byInode.set(e.inode, unit);
      units.push(unit);
      continue;
    }
    units.push({ rels: [e.rel], kind: e.kind, size: e.kind === 'file' ? e.size : 0 });
  }
  return units;
}

export function planMoves(input: PlanInput): MovePlan {
  const free = input.disks.map((d) => d.freeBytes);
  const all = input.disks.map((_, i) => i);
  // where each directory is (or will be, once the planned moves are done)
  const planned = new Map<string, Set<number>>();
  const holders = (dir: string): number[] => {
    if (dir === '') return all;
    const set = new Set(input.presentOn(dir));
    for (const i of planned.get(dir) ?? []) set.add(i);
    return [...set].sort((a, b) => a - b);
  };
  const moves: PlannedMove[] = [];
  const skipped: Skipped[] = [];
  const skip = (u: MoveUnit, reason: Skipped['reason']) => {
    for (const rel of u.rels) skipped.push({ share: input.share, path: rel, reason });
  };

  for (const unit of moveUnits(input.entries)) {
    if (unit.rels.some((r) => input.openForWriting.has(r))) {
      skip(unit, 'open_for_writing');
      continue;
    }
    if (unit.rels.some((r) => input.presentOn(r).length > 0)) {
      // a directory already there needs no move (the cache's empty one is tidied away)
      if (unit.kind !== 'dir') skip(unit, 'exists_on_array');
      continue;
    }
    const need = unit.kind === 'dir' ? BLOCK : footprint(unit.size);
    // a disk where a directory of the path is a symlink or a file is never written below it
    const blocked = new Set<number>();
    for (const rel of unit.rels)
      for (let d = parentOf(rel); ; d = parentOf(d)) {
        for (const i of input.notDirOn?.(d) ?? []) blocked.add(i);
        if (d === '') break;
      }
    if (blocked.size === input.disks.length) {
      skip(unit, 'exists_on_array');
      continue;
    }
    const fits = (i: number) => !blocked.has(i) && (free[i] ?? 0) - need >= input.minFreeBytes;
    const disk = choose(input.policy, parentOf(unit.rels[0]!), fits, free, holders);
    if (disk < 0) {
      skip(unit, 'no_space');
      continue;
    }
    free[disk] = (free[disk] ?? 0) - need;
    for (const rel of unit.rels) {
      for (let d = unit.kind === 'dir' ? rel : parentOf(rel); d !== ''; d = parentOf(d)) {
        const set = planned.get(d) ?? new Set<number>();
        set.add(disk);
        planned.set(d, set);
      }
    }
    moves.push({ ...unit, disk });
  }
  return { moves, skipped };
}

/** The disk among `candidates` with the most (or least) free space; the first on a tie; -1 if none. */
function byFree(candidates: readonly number[], free: readonly number[], most: boolean): number {
  let best = -1;
  for (const i of candidates) {
    if (best < 0) best = i;
    else if (most ? free[i]! > free[best]! : free[i]! < free[best]!) best = i;
  }
  return best;
}

/**
 * mergerfs's create policies over the disks that fit the file:
 * - `ff` the first disk in order, `mfs` the most free space, `lfs` the least free space;
 * - `epmfs` the most free space among the disks that already hold the parent directory; when no
 *   disk holds it (a folder new to the array) it falls back to `mspmfs`;
 * - `mspmfs` the most free space among the disks holding the deepest ancestor that some disk with
 *   room holds (up to the share's top directory, which every disk holds).
 */
function choose(
  policy: CreatePolicy,
  parent: string,
  fits: (i: number) => boolean,
  free: readonly number[],
  holders: (dir: string) => number[],
): number {
  const all = holders('');
  switch (policy) {
    case 'ff':
      return all.find(fits) ?? -1;
    case 'mfs':
      return byFree(all.filter(fits), free, true);
    case 'lfs':
      return byFree(all.filter(fits), free, false);
    case 'epmfs': {
      const h = holders(parent);
      if (h.length > 0) return byFree(h.filter(fits), free, true);
      return choose('mspmfs', parent, fits, free, holders);
    }
    case 'mspmfs':
      for (let dir = parent; ; dir = parentOf(dir)) {
        const h = holders(dir).filter(fits);
        if (h.length > 0) return byFree(h, free, true);
        if (dir === '') return -1;
      }
  }
}

/**
 * Batches of moves to one disk each, in plan order: at most `maxFiles` names or `maxBytes` bytes
 * per batch (a hard-linked file is never split). One batch is one rsync run and the unit of
 * cancellation and restart recovery.
 */
export function batchMoves(
  moves: readonly PlannedMove[],
  limits: { maxFiles: number; maxBytes: number },
): PlannedMove[][] {
  const open = new Map<number, { moves: PlannedMove[]; files: number; bytes: number }>();
  const out: PlannedMove[][] = [];
  for (const m of moves) {
    let b = open.get(m.disk);
    if (
      b &&
      b.moves.length > 0 &&
      (b.files + m.rels.length > limits.maxFiles || b.bytes + m.size > limits.maxBytes)
    ) {
      out.push(b.moves);
      b = undefined;
    }
    if (!b) {
      b = { moves: [], files: 0, bytes: 0 };
      open.set(m.disk, b);
    }
    b.moves.push(m);
    b.files += m.rels.length;
    b.bytes += m.size;
  }
  for (const b of open.values()) if (b.moves.length > 0) out.push(b.moves);
  return out;
}
