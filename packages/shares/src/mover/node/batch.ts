/**
 * One batch: the files of one share going to one data disk. Recorded in a journal first, copied by
 * `rsync -aHAX` (owners, modes, times, ACLs, xattrs, hard links; each file written under rsync's
 * temporary name `.<name>.XXXXXX` in its folder on the disk and renamed into place, never over an
 * existing path; a file is created in its own folder, so the filesystem places it as any copy
 * would), verified, and removed from the cache only once it is whole on the disk. `settleBatch` is the same ending
 * for a batch a cancel or a killed service interrupted: every file ends whole on exactly one side.
 */
import { createHash } from 'node:crypto';
import fsSync, { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type CommandRunner, missingTool } from '@appliance/common';
import type { PlannedMove, Skipped } from '../core/model.ts';
import { type CopyFacts, sameCopy } from '../core/report.ts';
import { mapLimit } from './scan.ts';

/**
 * Below each data disk's root: where an earlier version had rsync write its temporary files. Still
 * removed when a batch settles (a journal that version left). rsync now writes each file under a
 * temporary name in its own folder on the disk (see `rsyncLeftovers`).
 */
export const TEMP_DIR_NAME = '.appliance-mover';
const JOURNAL = 'batch.json';
const LIST = 'batch.list';

export interface BatchJournal {
  share: string;
  /** Real paths: the share's directory on the cache and on the target disk, the disk's root. */
  cacheDir: string;
  diskDir: string;
  diskRoot: string;
  units: { rels: string[]; kind: PlannedMove['kind']; facts: (SerialFacts | null)[] }[];
  /** When rsync was about to start (ms since the epoch): its temporary files are newer. */
  startedAt?: number;
}

type SerialFacts = { size: string; mtimeNs: string };

export interface BatchOutcome {
  movedFiles: number;
  movedBytes: number;
  skipped: Skipped[];
}

/**
 * One copy's facts. Without a hash the calls are synchronous: right after rsync the metadata is in
 * memory, and a thread-pool round trip per call cost more than the call (measured: a 1,000-file
 * batch settled in ≈150 ms async, a few ms synchronous).
 */
async function facts(file: string, hash: boolean): Promise<CopyFacts | null> {
  const st = hash
    ? await fs.lstat(file, { bigint: true }).catch(() => null)
    : (fsSync.lstatSync(file, { bigint: true, throwIfNoEntry: false }) ?? null);
  if (!st) return null;
  const kind = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other';
  const f: CopyFacts = { kind, size: st.size, mtimeNs: st.mtimeNs };
  if (kind === 'symlink') f.linkTarget = hash ? await fs.readlink(file) : fsSync.readlinkSync(file);
  if (kind === 'file' && hash) f.sha256 = await sha256(file);
  return f;
}

/** Removes a name (file, symlink, other) if it is there. */
function unlinkQuietly(file: string): void {
  try {
    fsSync.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

export async function sha256(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function writeJournal(dir: string, journal: BatchJournal): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `${JOURNAL}.tmp`);
  const fh = await fs.open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(JSON.stringify(journal));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, path.join(dir, JOURNAL));
  await fsyncDir(dir);
}

export async function readJournal(dir: string): Promise<BatchJournal | null> {
  const text = await fs.readFile(path.join(dir, JOURNAL), 'utf8').catch(() => null);
  return text === null ? null : (JSON.parse(text) as BatchJournal);
}

async function dropJournal(dir: string): Promise<void> {
  await fs.rm(path.join(dir, JOURNAL), { force: true });
  await fs.rm(path.join(dir, LIST), { force: true });
}

/**
 * Ends a journalled batch: per file (all names of a hard-linked file together), when every name
 * is on the disk and is the cache's copy (size, mtime, and the SHA-256 when `hash`), the cache's
 * names are removed; otherwise the disk's names that are this batch's copies (the facts recorded
 * before the copy) are removed and the file stays whole on the cache. rsync's leftovers go.
 */
export async function settleBatch(
  journalDir: string,
  journal: BatchJournal,
  hash: boolean,
  /** Also remove rsync's temporary files (a killed rsync leaves its current one). */
  sweep = true,
): Promise<BatchOutcome> {
  if (sweep) await removeRsyncLeftovers(journal);
  // files at once (each waits on the disks), outcomes in the batch's order
  const outcomes = await mapLimit(journal.units, 32, (unit) => settleUnit(journal, unit, hash));
  const out: BatchOutcome = { movedFiles: 0, movedBytes: 0, skipped: [] };
  for (const o of outcomes) {
    out.movedFiles += o.movedFiles;
    out.movedBytes += o.movedBytes;
    out.skipped.push(...o.skipped);
  }
  await fs.rm(path.join(journal.diskRoot, TEMP_DIR_NAME), { recursive: true, force: true });
  await dropJournal(journalDir);
  return out;
}

/** A temporary name rsync gives `.<name>.XXXXXX` (name truncated when long; mkstemp's letters). */
const TEMP_NAME = /^\.(.+)\.[A-Za-z0-9]{6}$/;
/** Kernel timestamps lag the wall clock by up to a tick. */
const CLOCK_SLACK_MS = 200;

/**
 * rsync's temporary files of this batch left in the disk's folders: in the folder of a file of the
 * batch, a regular file named `.<that file's name (or its start)>.XXXXXX`, created after the batch
 * began, that is not itself a name of the batch. Anything else is never touched.
 */
export async function rsyncLeftovers(journal: BatchJournal): Promise<string[]> {
  if (journal.startedAt === undefined) return [];
  const since = journal.startedAt - CLOCK_SLACK_MS;
  const byDir = new Map<string, Set<string>>();
  const ours = new Set<string>();
  for (const u of journal.units) {
    if (u.kind === 'dir') continue;
    for (const rel of u.rels) {
      ours.add(rel);
      const i = rel.lastIndexOf('/');
      const dir = i < 0 ? '' : rel.slice(0, i);
      const names = byDir.get(dir) ?? new Set<string>();
      byDir.set(dir, names);
      names.add(rel.slice(i + 1));
    }
  }
  const out: string[] = [];
  for (const [dir, names] of byDir) {
    const entries = await fs.readdir(path.join(journal.diskDir, dir)).catch(() => [] as string[]);
    for (const entry of entries) {
      const m = TEMP_NAME.exec(entry);
      if (!m) continue;
      const stem = m[1]!;
      // rsync shortens only long names (to fit NAME_MAX with the dot and the suffix)
      if (![...names].some((n) => n === stem || (stem.length >= 200 && n.startsWith(stem)))) continue;
      const rel = dir === '' ? entry : `${dir}/${entry}`;
      if (ours.has(rel)) continue;
      const st = fsSync.lstatSync(path.join(journal.diskDir, rel), { throwIfNoEntry: false });
      if (st?.isFile() && st.ctimeMs >= since) out.push(rel);
    }
  }
  return out;
}

async function removeRsyncLeftovers(journal: BatchJournal): Promise<void> {
  for (const rel of await rsyncLeftovers(journal)) unlinkQuietly(path.join(journal.diskDir, rel));
}

async function settleUnit(
  journal: BatchJournal,
  unit: BatchJournal['units'][number],
  hash: boolean,
): Promise<BatchOutcome> {
  const out: BatchOutcome = { movedFiles: 0, movedBytes: 0, skipped: [] };
  const cache = await Promise.all(unit.rels.map((r) => facts(path.join(journal.cacheDir, r), hash)));
  const disk = await Promise.all(unit.rels.map((r) => facts(path.join(journal.diskDir, r), hash)));
  const onDisk = disk.filter((d) => d !== null).length;
  if (onDisk === 0) {
    if (unit.kind !== 'dir' && cache.some((c) => c !== null))
      for (const rel of unit.rels)
        out.skipped.push({ share: journal.share, path: rel, reason: 'copy_failed' });
    return out;
  }
  const whole =
    onDisk === unit.rels.length &&
    unit.rels.every((_, i) => cache[i] === null || sameCopy(cache[i]!, disk[i]!)) &&
    (await sameInode(unit.rels.map((r) => path.join(journal.diskDir, r))));
  if (whole) {
    if (unit.kind === 'dir') return out;
    // names rsync removed already are not looked up again (a failed unlink costs an exception)
    unit.rels.forEach((rel, i) => {
      if (cache[i] !== null) unlinkQuietly(path.join(journal.cacheDir, rel));
    });
    out.movedFiles += unit.rels.length;
    if (unit.kind === 'file') out.movedBytes += Number(disk[0]!.size);
    return out;
  }
  // not whole: take back this batch's copies, keep the cache's
  for (let i = 0; i < unit.rels.length; i++) {
    const d = disk[i];
    const recorded = unit.facts[i];
    if (!d || !recorded || unit.kind === 'dir') continue;
    const ours =
      d.kind === 'symlink' || (d.size === BigInt(recorded.size) && d.mtimeNs === BigInt(recorded.mtimeNs));
    if (ours && cache[i] !== null) unlinkQuietly(path.join(journal.diskDir, unit.rels[i]!));
  }
  const changed = unit.rels.some((_, i) => {
    const c = cache[i];
    const r = unit.facts[i];
    return c && r && c.kind === 'file' && (c.size !== BigInt(r.size) || c.mtimeNs !== BigInt(r.mtimeNs));
  });
  const reason = changed ? 'changed_during_move' : 'copy_failed';
  for (const rel of unit.rels) out.skipped.push({ share: journal.share, path: rel, reason });
  return out;
}

async function sameInode(files: readonly string[]): Promise<boolean> {
  if (files.length < 2) return true;
  const inos = await Promise.all(
    files.map((f) => fs.lstat(f, { bigint: true }).then((s) => `${s.dev}:${s.ino}`)),
  );
  return inos.every((i) => i === inos[0]);
}

export interface RunBatchOptions {
  runner: CommandRunner;
  journalDir: string;
  share: string;
  cacheDir: string;
  diskDir: string;
  diskRoot: string;
  moves: readonly PlannedMove[];
  hash: boolean;
  signal?: AbortSignal;
  onSpawn?: (pid: number | null) => void;
  onOutput?: (line: string) => void;
  /** Each file rsync has put in place (its size), for live progress; throttled by the caller. */
  onFile?: (size: number) => void;
  /** Wall time of the batch's phases (see `MoverOptions.onPhase`). */
  onPhase?: (phase: 'journal' | 'rsync' | 'verify-remove', ms: number) => void;
}

/** rsync's line per file it wrote (`--out-format`): a marker, the size, the name. */
const FILE_LINE = /^>MOVED (\d+) /;

/**
 * Journals, copies, verifies and settles one batch. Without a hash, the files with one name are
 * copied by one rsync with `--remove-source-files`: rsync's sender removes a cache file only after
 * the receiver has checked the transfer's whole-file checksum, set its metadata and renamed it into
 * place on the disk, and only when the file's size and mtime did not change since it was sent; the
 * removals overlap the copy, as with rsync by hand. Hard-linked names, and every file when hashing,
 * are removed by the settling after their own checks (one inode; SHA-256). The settling then
 * checks every file of the batch either way (a removed cache file counts only when the disk holds
 * it), so what is reported moved is on the disk.
 */
export async function runBatch(o: RunBatchOptions): Promise<BatchOutcome> {
  let mark = performance.now();
  const phase = (name: 'journal' | 'rsync' | 'verify-remove') => {
    const now = performance.now();
    o.onPhase?.(name, now - mark);
    mark = now;
  };
  const rsync = await o.runner.resolve('rsync');
  if (rsync === null) throw missingTool('rsync');
  // synchronous: the scan just read these inodes (see `facts`)
  const units = o.moves.map((m) => ({
    rels: m.rels,
    kind: m.kind,
    facts: m.rels.map((r) => {
      const st = fsSync.lstatSync(path.join(o.cacheDir, r), { bigint: true, throwIfNoEntry: false });
      return st ? { size: String(st.size), mtimeNs: String(st.mtimeNs) } : null;
    }),
  }));
  const journal: BatchJournal = {
    share: o.share,
    cacheDir: o.cacheDir,
    diskDir: o.diskDir,
    diskRoot: o.diskRoot,
    units,
    startedAt: Date.now(),
  };
  await writeJournal(o.journalDir, journal);
  await fs.mkdir(o.diskDir, { recursive: true });
  const withSetpriv = (await o.runner.resolve('setpriv')) !== null;
  // rsync removes the single names (not when hashing); the settling removes the rest
  const runs = o.hash
    ? [{ moves: o.moves, remove: false }]
    : [
        { moves: o.moves.filter((m) => m.rels.length === 1), remove: true },
        { moves: o.moves.filter((m) => m.rels.length > 1), remove: false },
      ];
  phase('journal');
  // rsync removes its temporary file when it ends, however it ends, unless it is killed
  let clean = true;
  for (const run of runs) {
    if (run.moves.length === 0) continue;
    if (o.signal?.aborted) break;
    const list = path.join(o.journalDir, LIST);
    await fs.writeFile(list, `${run.moves.flatMap((m) => m.rels).join('\0')}\0`, { mode: 0o600 });
    const args = [
      '-aHAX',
      '--numeric-ids',
      '--ignore-existing',
      ...(run.remove ? ['--remove-source-files'] : []),
      '--from0',
      '--out-format=>MOVED %l %n',
      `--files-from=${list}`,
      `${o.cacheDir}/`,
      `${o.diskDir}/`,
    ];
    const result = await o.runner.run(
      withSetpriv ? 'setpriv' : rsync,
      withSetpriv ? ['--pdeathsig', 'TERM', '--', rsync, ...args] : args,
      {
        timeoutMs: null,
        ...(o.signal ? { signal: o.signal } : {}),
        killGraceMs: 30_000,
        onSpawn: (pid) => o.onSpawn?.(pid),
        onLine: (line, stream) => {
          if (stream === 'stdout') {
            const m = FILE_LINE.exec(line);
            if (m && !line.endsWith('/')) o.onFile?.(Number(m[1]));
          } else if (line.trim() !== '') o.onOutput?.(line);
        },
      },
    );
    o.onSpawn?.(null);
    if (result.exitCode !== 0) clean = false;
    if (result.exitCode !== 0 && !result.cancelled)
      o.onOutput?.(`rsync exited with ${result.exitCode}; the files it did not copy stay on the cache`);
  }
  phase('rsync');
  const out = await settleBatch(o.journalDir, journal, o.hash, !clean);
  phase('verify-remove');
  return out;
}
