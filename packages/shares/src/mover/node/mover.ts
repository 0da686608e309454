/**
 * A mover run over the `cache-then-move` shares: settle what a previous run left journalled, then
 * per share scan the cache, plan (the core), and move batch by batch; finally tidy the cache's
 * empty directories that the data disks also hold. Cancellable between files (the signal stops the
 * running rsync, whose batch is then settled).
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CommandRunner } from '@appliance/common';
import type { CreatePolicy, PlannedMove, Skipped } from '../core/model.ts';
import { batchMoves, footprint, planMoves } from '../core/plan.ts';
import { countByReason, type MoverResult, SKIPPED_LISTED } from '../core/report.ts';
import { readJournal, runBatch, settleBatch } from './batch.ts';
import { filesOpenForWriting, presence, scanCache } from './scan.ts';

export interface MoverShare {
  name: string;
  createPolicy: CreatePolicy;
}

export interface MoverProgress {
  share: string;
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface MoverOptions {
  shares: readonly MoverShare[];
  /** Real path of `/mnt/cache`. */
  cacheRoot: string;
  /** Real paths of the data disks' mountpoints, in the array's order. */
  dataDisks: readonly string[];
  minFreeBytes: number;
  verify: 'size-mtime' | 'sha256';
  /** Where the current batch is journalled (real path, on the system disk). */
  journalDir: string;
  /** `/proc` (a sandbox may point elsewhere). */
  procDir: string;
  runner: CommandRunner;
  signal?: AbortSignal;
  batch?: { maxFiles: number; maxBytes: number };
  onSpawn?: (pid: number | null) => void;
  onOutput?: (line: string) => void;
  onProgress?: (p: MoverProgress) => void;
  /** Between planning and each batch (tests inject a kill or a cancel here). */
  beforeBatch?: (index: number) => Promise<void> | void;
  /** Wall time of each phase as it ends (a profiling aid: the benchmark prints the sums). */
  onPhase?: (phase: MoverPhase, ms: number) => void;
}

/** The phases of a run, in order (`batch-*` once per batch). */
export type MoverPhase =
  | 'recover'
  | 'scan'
  | 'open-check'
  | 'presence'
  | 'plan'
  | 'batch-check'
  | 'journal'
  | 'rsync'
  | 'verify-remove'
  | 'tidy';

/**
 * Per rsync run. Larger batches cost fewer runs and checks (measured: 10 runs of 1,000 files were
 * ≈2× one rsync by hand; see tools/bench/mover); a cancel still stops between files (rsync is
 * stopped and its batch settled), and a restart settles at most one batch (hashing ≤ 1 GiB).
 */
export const DEFAULT_BATCH = { maxFiles: 10_000, maxBytes: 1024 * 1024 * 1024 };

/** Settles a batch a killed or cancelled run left journalled (the restart recovery). */
export async function recoverMover(
  journalDir: string,
): Promise<{ moved: number; keptOnCache: number } | null> {
  const journal = await readJournal(journalDir);
  if (!journal) return null;
  const r = await settleBatch(journalDir, journal, true);
  return { moved: r.movedFiles, keptOnCache: r.skipped.length };
}

/** The disks where a directory above `rel` is not a directory. */
function ancestorsNotDir(notDir: Map<string, number[]>, rel: string): number[] {
  const out: number[] = [];
  for (
    let r = rel.slice(0, Math.max(0, rel.lastIndexOf('/')));
    r !== '';
    r = r.slice(0, Math.max(0, r.lastIndexOf('/')))
  )
    out.push(...(notDir.get(r) ?? []));
  return out;
}

async function freeBytes(dir: string): Promise<number> {
  const s = await fs.statfs(dir);
  return s.bavail * s.bsize;
}

const isDir = (p: string) =>
  fs.lstat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );

const isDirSync = (p: string) => fsSync.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * Removes the empty directories below `top` that some data disk holds too (the pool keeps them).
 * Synchronous calls on inodes the run just read, yielding to the event loop between directories.
 */
async function tidyEmptyDirs(top: string, diskDirs: readonly string[]): Promise<number> {
  let removed = 0;
  const visit = async (dir: string, rel: string): Promise<boolean> => {
    let entries: fsSync.Dirent[];
    try {
      entries = fsSync.readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    let left = entries.length;
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (await visit(path.join(dir, e.name), r)) left -= 1;
    }
    if (rel === '' || left > 0) return false;
    if (!diskDirs.some((d) => isDirSync(path.join(d, rel)))) return false;
    try {
      fsSync.rmdirSync(dir);
    } catch {
      // not empty after all (a file arrived), or gone: checked below
    }
    const gone = !isDirSync(dir);
    if (gone) removed += 1;
    await new Promise((r) => setImmediate(r));
    return gone;
  };
  await visit(top, '');
  return removed;
}

export async function runMover(o: MoverOptions): Promise<MoverResult> {
  let mark = performance.now();
  /** Ends the phase that began at the last mark. */
  const phase = (name: MoverPhase) => {
    const now = performance.now();
    o.onPhase?.(name, now - mark);
    mark = now;
  };
  const skipped: Skipped[] = [];
  let movedFiles = 0;
  let movedBytes = 0;
  let removedDirs = 0;
  const hash = o.verify === 'sha256';
  // a batch a killed service left: every file whole on one side before anything else
  const left = await readJournal(o.journalDir);
  if (left) {
    const r = await settleBatch(o.journalDir, left, true);
    movedFiles += r.movedFiles;
    movedBytes += r.movedBytes;
  }
  phase('recover');
  const free = await Promise.all(o.dataDisks.map(freeBytes));
  const plans: { share: MoverShare; cacheDir: string; diskDirs: string[]; moves: PlannedMove[] }[] = [];
  for (const share of o.shares) {
    const cacheDir = path.join(o.cacheRoot, share.name);
    if (!(await isDir(cacheDir))) continue;
    const diskDirs = o.dataDisks.map((d) => path.join(d, share.name));
    const entries = await scanCache(cacheDir);
    // the share's directory on a disk that is a symlink or a file: nothing goes to that disk
    const badTop: number[] = [];
    for (let d = 0; d < diskDirs.length; d++) {
      const st = await fs.lstat(diskDirs[d]!).catch(() => null);
      if (st && !st.isDirectory()) badTop.push(d);
    }
    phase('scan');
    const open = await filesOpenForWriting(o.procDir, cacheDir);
    phase('open-check');
    const openRel = new Set([...open].map((p) => path.relative(cacheDir, p)));
    const present = await presence(
      diskDirs,
      entries.map((e) => e.rel),
    );
    phase('presence');
    const plan = planMoves({
      share: share.name,
      policy: share.createPolicy,
      minFreeBytes: o.minFreeBytes,
      disks: o.dataDisks.map((d, i) => ({ mountpoint: d, freeBytes: free[i]! })),
      entries,
      openForWriting: openRel,
      presentOn: (rel) => present.present.get(rel) ?? [],
      notDirOn: (rel) => (rel === '' ? badTop : (present.notDir.get(rel) ?? [])),
    });
    for (const m of plan.moves) free[m.disk] = free[m.disk]! - footprint(m.size);
    skipped.push(...plan.skipped);
    plans.push({ share, cacheDir, diskDirs, moves: plan.moves });
    phase('plan');
  }
  const filesTotal = plans.reduce((n, p) => n + p.moves.reduce((k, m) => k + m.rels.length, 0), 0);
  const bytesTotal = plans.reduce((n, p) => n + p.moves.reduce((k, m) => k + m.size, 0), 0);
  let filesDone = 0;
  let bytesDone = 0;
  let index = 0;
  for (const p of plans) {
    for (const batch of batchMoves(p.moves, o.batch ?? DEFAULT_BATCH)) {
      if (o.signal?.aborted) break;
      await o.beforeBatch?.(index++);
      if (o.signal?.aborted) break;
      mark = performance.now();
      // checked again just before the copy: a file opened since the plan stays
      const open = await filesOpenForWriting(o.procDir, p.cacheDir);
      const disk = batch[0]!.disk;
      const now = await presence(
        p.diskDirs,
        batch.flatMap((m) => m.rels),
      );
      const go: PlannedMove[] = [];
      for (const m of batch) {
        const reason = m.rels.some((r) => open.has(path.join(p.cacheDir, r)))
          ? 'open_for_writing'
          : m.rels.some((r) => (now.present.get(r) ?? []).length > 0 && m.kind !== 'dir') ||
              m.rels.some((r) => ancestorsNotDir(now.notDir, r).includes(disk))
            ? 'exists_on_array'
            : null;
        if (reason) for (const r of m.rels) skipped.push({ share: p.share.name, path: r, reason });
        else go.push(m);
      }
      phase('batch-check');
      let liveFiles = 0;
      let liveBytes = 0;
      if (go.length > 0) {
        const r = await runBatch({
          runner: o.runner,
          journalDir: o.journalDir,
          share: p.share.name,
          cacheDir: p.cacheDir,
          diskDir: p.diskDirs[disk]!,
          diskRoot: o.dataDisks[disk]!,
          moves: go,
          hash,
          ...(o.signal ? { signal: o.signal } : {}),
          ...(o.onSpawn ? { onSpawn: o.onSpawn } : {}),
          ...(o.onOutput ? { onOutput: o.onOutput } : {}),
          ...(o.onPhase ? { onPhase: o.onPhase } : {}),
          onFile: (size) => {
            liveFiles += 1;
            liveBytes += size;
            o.onProgress?.({
              share: p.share.name,
              filesDone: filesDone + liveFiles,
              filesTotal,
              bytesDone: bytesDone + liveBytes,
              bytesTotal,
            });
          },
        });
        movedFiles += r.movedFiles;
        movedBytes += r.movedBytes;
        skipped.push(...r.skipped);
      }
      filesDone += batch.reduce((k, m) => k + m.rels.length, 0);
      bytesDone += batch.reduce((k, m) => k + m.size, 0);
      o.onProgress?.({ share: p.share.name, filesDone, filesTotal, bytesDone, bytesTotal });
    }
    mark = performance.now();
    removedDirs += await tidyEmptyDirs(p.cacheDir, p.diskDirs);
    phase('tidy');
    if (o.signal?.aborted) break;
  }
  skipped.sort((a, b) => (a.share === b.share ? (a.path < b.path ? -1 : 1) : a.share < b.share ? -1 : 1));
  return {
    movedFiles,
    movedBytes,
    skippedCount: skipped.length,
    skippedByReason: countByReason(skipped),
    skipped: skipped.slice(0, SKIPPED_LISTED),
    shares: plans.map((p) => p.share.name),
    removedDirs,
    verify: o.verify,
  };
}
