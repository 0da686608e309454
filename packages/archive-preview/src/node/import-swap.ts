/**
 * The import's file swap (08 §14 step 3) with a journal, so that a failure or a SIGKILL at any point
 * leaves either the whole old or the whole new configuration.
 *
 * Two work directories, each on the filesystem of what it swaps (a rename never crosses
 * filesystems): `<stateDir>/import` (the catalog and the stacks, the journal, the prepared
 * database) and `<etcDir>.import` beside `/etc/appliance` (custom config files, `smb.conf`, the
 * machine key; beside, not inside, so no walk of `/etc/appliance` ever sees them). Each holds
 * `new/` (staged content) and `old/` (the live paths moved aside).
 *
 * The journal lists every path before the first one is moved; each path is swapped with two
 * renames (live → aside, staged → live), so its state is always one of: untouched, moved aside,
 * replaced. `rollback` puts the aside paths back and removes what was put; `finish` drops the
 * aside paths. Which of the two a restart runs is decided by the database: the import's commit
 * sets `PRAGMA user_version` to the journal's nonce in the same transaction as the new rows
 * (import-db.ts), so the journal is rolled forward exactly when the new database is in place.
 */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir, type HostPaths } from '@appliance/common';

export interface SwapEntry {
  /** Real path of the live file or directory. */
  target: string;
  /** Real path of the staged content, or null to remove the live path. */
  staged: string | null;
  /** Real path the live one is moved to. */
  aside: string;
  /** Whether the live path existed when the journal was written. */
  existed: boolean;
}

export interface ImportJournal {
  version: 1;
  nonce: number;
  entries: SwapEntry[];
  /** Directories this import created (parents of new paths, mountpoints), in creation order. */
  createdDirs: string[];
  /** Real mountpoints this import mounted (fresh install). */
  mounted: string[];
  /** Stack directories to remove after the commit when they are left empty. */
  emptyStackDirs: string[];
}

export interface WorkDirs {
  state: string;
  etc: string;
  journal: string;
}

export const workDirs = (paths: HostPaths): WorkDirs => {
  const state = path.join(paths.stateDir, 'import');
  return { state, etc: `${paths.etcDir}.import`, journal: path.join(state, 'journal.json') };
};

const exists = (p: string) => fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined;

/** Writes a file durably: temp file, fsync, rename, fsync of the directory. */
export async function writeDurable(file: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, file);
  await fsyncDir(path.dirname(file));
}

/** The journaled swap of one import. */
export class FileSwap {
  readonly dirs: WorkDirs;
  readonly journal: ImportJournal;
  private written = false;

  constructor(paths: HostPaths, nonce = randomInt(1, 2 ** 31 - 1)) {
    this.dirs = workDirs(paths);
    this.journal = { version: 1, nonce, entries: [], createdDirs: [], mounted: [], emptyStackDirs: [] };
  }

  /** Creates both work directories (0700) with their `new/` and `old/` folders. */
  async prepare(): Promise<void> {
    for (const dir of [this.dirs.state, this.dirs.etc]) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, 'new'), { recursive: true, mode: 0o700 });
      fs.mkdirSync(path.join(dir, 'old'), { recursive: true, mode: 0o700 });
      fs.chmodSync(dir, 0o700);
    }
  }

  /** Where to stage content for `target` (on the same filesystem as the target). */
  stagedPath(target: string, paths: HostPaths, id: string): string {
    return path.join(this.workFor(target, paths), 'new', id);
  }

  private workFor(target: string, paths: HostPaths): string {
    return target === paths.etcDir || target.startsWith(`${paths.etcDir}/`) ? this.dirs.etc : this.dirs.state;
  }

  async save(): Promise<void> {
    await writeDurable(this.dirs.journal, `${JSON.stringify(this.journal, null, 1)}\n`);
    this.written = true;
  }

  /**
   * Swaps every entry in order (journal written first, directories fsynced after). On a failure
   * the caller runs `rollback`.
   */
  async swap(paths: HostPaths, items: { target: string; staged: string | null }[]): Promise<void> {
    const start = this.journal.entries.length;
    for (const [i, item] of items.entries()) {
      this.journal.entries.push({
        target: item.target,
        staged: item.staged,
        aside: path.join(this.workFor(item.target, paths), 'old', String(start + i)),
        existed: exists(item.target),
      });
    }
    // Parents of new paths are recorded in the journal before they are created, so a rollback
    // (in process or after a crash) removes them again.
    const created: string[] = [];
    for (const e of this.journal.entries.slice(start)) {
      if (e.staged !== null) created.push(...this.planDirs(path.dirname(e.target)));
    }
    await this.save();
    for (const d of created) fs.mkdirSync(d, { mode: 0o755 });
    const synced = new Set<string>();
    for (const e of this.journal.entries.slice(start)) {
      if (e.existed) fs.renameSync(e.target, e.aside);
      if (e.staged !== null) fs.renameSync(e.staged, e.target);
      synced.add(path.dirname(e.target));
      synced.add(path.dirname(e.aside));
    }
    for (const dir of synced) await fsyncDir(dir);
  }

  /** The missing directories of `mkdir -p dir` (not yet planned), recorded in the journal. */
  private planDirs(dir: string): string[] {
    const missing: string[] = [];
    for (let d = dir; !exists(d) && !this.journal.createdDirs.includes(d); d = path.dirname(d))
      missing.unshift(d);
    this.journal.createdDirs.push(...missing);
    return missing;
  }

  /**
   * Records a mount (and its missing mountpoint directories) in the journal before it is made, so a
   * restart after a crash unmounts it on rollback; then creates the directories.
   */
  async recordMount(realMountpoint: string): Promise<void> {
    const created = this.planDirs(realMountpoint);
    this.journal.mounted.push(realMountpoint);
    await this.save();
    for (const d of created) fs.mkdirSync(d, { mode: 0o755 });
  }

  async rollback(unmount: (real: string) => Promise<void>): Promise<void> {
    await rollbackJournal(this.journal, unmount);
    removeWork(this.dirs);
  }

  /** After the commit: the aside paths and the work directories go. */
  finish(): void {
    finishJournal(this.journal);
    removeWork(this.dirs);
  }

  get journalWritten(): boolean {
    return this.written;
  }
}

function removeWork(dirs: WorkDirs): void {
  fs.rmSync(dirs.journal, { force: true });
  fs.rmSync(dirs.state, { recursive: true, force: true });
  fs.rmSync(dirs.etc, { recursive: true, force: true });
}

/** Puts every aside path back and removes what the import put (reverse order); unmounts. */
export async function rollbackJournal(
  journal: ImportJournal,
  unmount: (real: string) => Promise<void>,
): Promise<void> {
  for (const m of [...journal.mounted].reverse()) await unmount(m).catch(() => undefined);
  for (const e of [...journal.entries].reverse()) {
    if (e.existed) {
      if (exists(e.aside)) {
        fs.rmSync(e.target, { recursive: true, force: true });
        fs.renameSync(e.aside, e.target);
      }
      // aside missing: the live path was never moved
    } else if (e.staged !== null) {
      fs.rmSync(e.target, { recursive: true, force: true });
    }
  }
  for (const d of [...journal.createdDirs].reverse()) {
    try {
      fs.rmdirSync(d);
    } catch {
      // not empty (something else lives there) or already gone
    }
  }
  for (const dir of new Set(journal.entries.map((e) => path.dirname(e.target)))) {
    if (exists(dir)) await fsyncDir(dir).catch(() => undefined);
  }
}

function finishJournal(journal: ImportJournal): void {
  for (const e of journal.entries) fs.rmSync(e.aside, { recursive: true, force: true });
  for (const d of journal.emptyStackDirs) {
    try {
      fs.rmdirSync(d);
    } catch {
      // not empty: the stack's other files stay
    }
  }
}

export type RecoveryOutcome = 'none' | 'rolled_back' | 'rolled_forward' | 'cleaned';

/**
 * Startup sweep (before the machine key is checked): an import interrupted by a crash is rolled
 * back when its commit did not happen (`committedNonce` ≠ the journal's nonce), else finished.
 * Work directories without a journal (a crash while staging) are removed.
 */
export async function recoverImport(
  paths: HostPaths,
  committedNonce: () => number | null,
  unmount: (real: string) => Promise<void>,
): Promise<RecoveryOutcome> {
  const dirs = workDirs(paths);
  // A pre-import archive cut off by the crash (a finished one stays: it is a valid backup).
  const partial = (() => {
    try {
      return fs.readdirSync(paths.backupsDir).filter((n) => /^\.pre-import-.*\.tmp$/.test(n));
    } catch {
      return [];
    }
  })();
  for (const name of partial) fs.rmSync(path.join(paths.backupsDir, name), { force: true });
  let journal: ImportJournal | null = null;
  try {
    journal = JSON.parse(fs.readFileSync(dirs.journal, 'utf8')) as ImportJournal;
  } catch {
    journal = null;
  }
  if (!journal) {
    if (!exists(dirs.state) && !exists(dirs.etc)) return partial.length > 0 ? 'cleaned' : 'none';
    removeWork(dirs);
    return 'cleaned';
  }
  if (committedNonce() === journal.nonce) {
    finishJournal(journal);
    removeWork(dirs);
    return 'rolled_forward';
  }
  await rollbackJournal(journal, unmount);
  removeWork(dirs);
  return 'rolled_back';
}
