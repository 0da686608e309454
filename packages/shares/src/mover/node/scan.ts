/** What is on a share's cache directory, what the kernel holds open for writing, where paths exist. */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CacheEntry } from '../core/model.ts';

/** Directories read at once by the scan: a cold cache waits on the disk for each. */
const SCAN_CONCURRENCY = 16;

/**
 * Every entry below `root` (links never followed), paths relative to it, depth first in name
 * order. Sibling directories are read at once (at most `SCAN_CONCURRENCY` reads in flight), so a
 * cold cache is not one disk wait after another.
 */
export async function scanCache(root: string): Promise<CacheEntry[]> {
  const limit = limiter(SCAN_CONCURRENCY);
  /** The entries below `dir` in order, and how many names `dir` holds. */
  const walk = async (dir: string, rel: string): Promise<{ entries: CacheEntry[]; names: number }> => {
    const { names, stats } = await limit(async () => {
      const names = (await fs.readdir(dir)).sort();
      // one directory's entries at once: the thread pool works while this waits
      const stats = await Promise.all(names.map((name) => fs.lstat(path.join(dir, name), { bigint: true })));
      return { names, stats };
    });
    const parts: (CacheEntry[] | Promise<CacheEntry[]>)[] = [];
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const st = stats[i]!;
      const r = rel === '' ? name : `${rel}/${name}`;
      const kind: CacheEntry['kind'] = st.isFile()
        ? 'file'
        : st.isDirectory()
          ? 'dir'
          : st.isSymbolicLink()
            ? 'symlink'
            : 'other';
      const entry: CacheEntry = {
        rel: r,
        kind,
        size: kind === 'file' ? Number(st.size) : 0,
        inode: `${st.dev}:${st.ino}`,
        nlink: Number(st.nlink),
      };
      parts.push([entry]);
      if (kind === 'dir')
        parts.push(
          walk(path.join(dir, name), r).then((sub) => {
            entry.empty = sub.names === 0;
            return sub.entries;
          }),
        );
    }
    return { entries: (await Promise.all(parts)).flat(), names: names.length };
  };
  return (await walk(root, '')).entries;
}

/** Runs the functions given to it, at most `n` at a time. */
function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    else active += 1;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

/** `fn` over `items`, at most `limit` at a time; results in the items' order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const O_ACCMODE = 0o3;

/**
 * Real paths below `under` that some process holds open for writing, as the kernel sees them
 * (`/proc/<pid>/fd/*` and the access mode in `/proc/<pid>/fdinfo/*`). A write through the pool
 * shows as mergerfs holding the branch's file.
 */
export async function filesOpenForWriting(procDir: string, under: string): Promise<Set<string>> {
  const prefix = under.endsWith('/') ? under : `${under}/`;
  const out = new Set<string>();
  const pids = (await fs.readdir(procDir)).filter((p) => /^\d+$/.test(p));
  await Promise.all(
    pids.map(async (pid) => {
      const fdDir = path.join(procDir, pid, 'fd');
      const fds = await fs.readdir(fdDir).catch(() => [] as string[]);
      for (const fd of fds) {
        const target = await fs.readlink(path.join(fdDir, fd)).catch(() => null);
        if (target === null || !target.startsWith(prefix)) continue;
        const info = await fs.readFile(path.join(procDir, pid, 'fdinfo', fd), 'utf8').catch(() => '');
        const m = /^flags:\s+([0-7]+)/m.exec(info);
        if (m && (Number.parseInt(m[1]!, 8) & O_ACCMODE) !== 0) out.add(target);
      }
    }),
  );
  return out;
}

/**
 * For each path (and each ancestor directory of it), the indexes of the roots where it exists
 * (`lstat`, the last component not followed), and for the ancestors, the roots where it is not a
 * directory (a symlink or a file: nothing may be written below it). Checked from the top down, so
 * a symlinked directory is seen before anything below it would be looked up through it.
 */
export async function presence(
  roots: readonly string[],
  rels: readonly string[],
): Promise<{ present: Map<string, number[]>; notDir: Map<string, number[]> }> {
  const wanted = new Set<string>();
  const dirs = new Set<string>();
  for (const rel of rels) {
    wanted.add(rel);
    for (let r = parentOfRel(rel); r !== '' && !dirs.has(r); r = parentOfRel(r)) {
      dirs.add(r);
      wanted.add(r);
    }
  }
  const present = new Map<string, number[]>();
  const notDir = new Map<string, number[]>();
  // top down: shorter paths first
  const depth = (rel: string) => {
    let n = 0;
    for (let i = rel.indexOf('/'); i >= 0; i = rel.indexOf('/', i + 1)) n += 1;
    return n;
  };
  const list = [...wanted]
    .map((rel) => ({ rel, depth: depth(rel) }))
    .sort((a, b) => a.depth - b.depth)
    .map((e) => e.rel);
  // synchronous lstat (mostly a missing name: a lookup in the dentry cache), yielding between chunks
  const CHUNK = 512;
  for (let i = 0; i < list.length; i += CHUNK) {
    for (const rel of list.slice(i, i + CHUNK)) {
      const found: number[] = [];
      const odd: number[] = [];
      for (let d = 0; d < roots.length; d++) {
        // below a non-directory nothing is looked up (it would be followed); below a directory
        // the disk does not have, nothing is there (one lookup for a whole new folder)
        const parent = parentOfRel(rel);
        if (parent !== '' && !present.get(parent)?.includes(d)) continue;
        if (blockedAbove(notDir, rel, d)) continue;
        const st = fsSync.lstatSync(path.join(roots[d]!, rel), { throwIfNoEntry: false });
        if (!st) continue;
        found.push(d);
        if (dirs.has(rel) && !st.isDirectory()) odd.push(d);
      }
      if (found.length > 0) present.set(rel, found);
      if (odd.length > 0) notDir.set(rel, odd);
    }
    await new Promise((r) => setImmediate(r));
  }
  return { present, notDir };
}

const parentOfRel = (rel: string) => rel.slice(0, Math.max(0, rel.lastIndexOf('/')));

function blockedAbove(notDir: Map<string, number[]>, rel: string, disk: number): boolean {
  for (let r = parentOfRel(rel); r !== ''; r = parentOfRel(r)) if (notDir.get(r)?.includes(disk)) return true;
  return false;
}
