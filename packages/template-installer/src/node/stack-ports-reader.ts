/**
 * Set 3 of 02 §6: every stack's published ports. Install first regenerates missing files from
 * the row (never overwriting one); preview reads a missing file's content from the row.
 */
import { createHash } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError, type HostPaths, writeFileAtomic } from '@appliance/common';
import type { ComposeFlavour } from '../core/env-file.ts';
import { OutsideSubset } from '../core/interpolate.ts';
import { stackPorts } from '../core/stack-ports.ts';
import type { ComposeTool } from './compose-tool.ts';
import { metaJson, rowMeta, stackDir } from './stack-files.ts';
import { type Locks, type StackRow, type StackStore, stackLockKey } from './stack-store.ts';

export interface StackPortsDeps {
  paths: HostPaths;
  stacks: StackStore;
  locks: Locks;
  compose: ComposeTool;
  /** The compose tool's environment (wins over `.env` in substitution). */
  environ: Readonly<Record<string, string>>;
}

export const stackUnreadable = (name: string) =>
  new AppError(
    409,
    'stack_unreadable',
    `The ports of the stack ${name} cannot be read; fix or remove its files under /var/lib/appliance/stacks/${name} and try again.`,
    { stack: name },
  );

/** LRU of ports by SHA-256 of (flavour, compose bytes, .env bytes). */
export class PortsCache {
  private readonly map = new Map<string, number[]>();
  private readonly max: number;
  constructor(max = 4096) {
    this.max = max;
  }
  static key(flavour: ComposeFlavour, compose: string, env: string): string {
    return createHash('sha256').update(`${flavour}\0${compose.length}\0${compose}\0${env}`).digest('hex');
  }
  get(key: string): number[] | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, ports: number[]): void {
    this.map.delete(key);
    this.map.set(key, ports);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

interface LoadedFiles {
  compose: string;
  env: string;
  /** All files are on disk as read (the tool fallback can run in place). */
  onDisk: boolean;
}

/** Identity of a stack's two files (no symlinks followed); null when either is not a regular file. */
function statKey(dir: string, flavour: ComposeFlavour): string | null {
  const d = fsSync.lstatSync(dir, { bigint: true, throwIfNoEntry: false });
  if (d === undefined || !d.isDirectory()) return null;
  const parts: string[] = [`stat\0${flavour}\0${dir}\0${d.dev}:${d.ino}`];
  for (const f of ['docker-compose.yml', '.env']) {
    const st = fsSync.lstatSync(path.join(dir, f), { bigint: true, throwIfNoEntry: false });
    if (st === undefined || !st.isFile()) return null;
    parts.push(`${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`);
  }
  if (!existsSync(path.join(dir, 'meta.json'))) return null;
  return parts.join('\0');
}

function dirStateSync(dir: string): 'missing' | 'dir' | 'unsafe' {
  const st = fsSync.lstatSync(dir, { throwIfNoEntry: false });
  if (st === undefined) return 'missing';
  return st.isSymbolicLink() || !st.isDirectory() ? 'unsafe' : 'dir';
}

const existsSync = (p: string) => fsSync.lstatSync(p, { throwIfNoEntry: false }) !== undefined;

/** A regular file's text without following a symbolic link; null when absent. */
function readNoFollowSync(file: string): string | null {
  let fd: number;
  try {
    fd = fsSync.openSync(file, fsSync.constants.O_RDONLY | fsSync.constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    if (!fsSync.fstatSync(fd).isFile()) throw new Error(`${file} is not a regular file`);
    return fsSync.readFileSync(fd, 'utf8');
  } finally {
    fsSync.closeSync(fd);
  }
}

async function dirState(dir: string): Promise<'missing' | 'dir' | 'unsafe'> {
  try {
    const st = await fs.lstat(dir);
    return st.isSymbolicLink() || !st.isDirectory() ? 'unsafe' : 'dir';
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
}

const exists = async (p: string) =>
  fs.lstat(p).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return false;
      throw e;
    },
  );

/** Writes a missing file; an existing one (created meanwhile) is left alone. */
async function writeIfMissing(file: string, data: string, mode: number): Promise<void> {
  if (await exists(file)) return;
  await writeFileAtomic(file, data, { mode, exclusive: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
}

/** Install: regenerates the missing files of one stack from its row (under its lock). */
export async function regenerateMissing(deps: StackPortsDeps, name: string): Promise<boolean> {
  return deps.locks.run(stackLockKey(name), async () => {
    const row = await deps.stacks.get(name);
    if (!row) return false;
    const dir = stackDir(deps.paths, name);
    const state = await dirState(dir);
    if (state === 'unsafe') throw stackUnreadable(name);
    if (state === 'missing') await fs.mkdir(dir, { mode: 0o755, recursive: true });
    const composeFile = path.join(dir, 'docker-compose.yml');
    const envFile = path.join(dir, '.env');
    const metaFile = path.join(dir, 'meta.json');
    if (!(await exists(envFile))) {
      let env: string;
      try {
        env = await deps.stacks.readEnv(name);
      } catch {
        throw stackUnreadable(name);
      }
      await writeIfMissing(envFile, env, 0o600);
    }
    await writeIfMissing(composeFile, row.compose, 0o644);
    await writeIfMissing(metaFile, metaJson(rowMeta(row)), 0o644);
    return true;
  });
}

async function loadFiles(
  deps: StackPortsDeps,
  row: StackRow,
  mode: 'preview' | 'install',
): Promise<LoadedFiles | null> {
  const dir = stackDir(deps.paths, row.name);
  // Synchronous on purpose: a few hundred tiny files read faster without a thread-pool hop each.
  const read = async () => {
    const state = dirStateSync(dir);
    if (state === 'unsafe') throw stackUnreadable(row.name);
    if (state === 'missing') return { compose: null, env: null, meta: false };
    return {
      compose: readNoFollowSync(path.join(dir, 'docker-compose.yml')),
      env: readNoFollowSync(path.join(dir, '.env')),
      meta: existsSync(path.join(dir, 'meta.json')),
    };
  };
  let files = await read();
  if (files.compose !== null && files.env !== null && files.meta)
    return { compose: files.compose, env: files.env, onDisk: true };
  if (mode === 'install') {
    if (!(await regenerateMissing(deps, row.name))) return null;
    files = await read();
    if (files.compose === null || files.env === null) throw stackUnreadable(row.name);
    return { compose: files.compose, env: files.env, onDisk: true };
  }
  const compose = files.compose ?? row.compose;
  let env = files.env;
  if (env === null) {
    try {
      env = await deps.stacks.readEnv(row.name);
    } catch {
      throw stackUnreadable(row.name);
    }
  }
  return { compose, env, onDisk: files.compose !== null && files.env !== null };
}

/** Ports the compose tool reads from files (in place, or a temporary copy for a preview). */
async function toolPorts(deps: StackPortsDeps, name: string, files: LoadedFiles): Promise<number[]> {
  if (files.onDisk) return deps.compose.configPorts({ name, dir: stackDir(deps.paths, name) });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-stack-'));
  try {
    await fs.writeFile(path.join(tmp, 'docker-compose.yml'), files.compose);
    await fs.writeFile(path.join(tmp, '.env'), files.env, { mode: 0o600 });
    return await deps.compose.configPorts({ name, dir: tmp });
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** Published ports of every stack row. */
export async function readStacksPorts(
  deps: StackPortsDeps,
  cache: PortsCache,
  flavour: ComposeFlavour,
  mode: 'preview' | 'install',
): Promise<Set<number>> {
  const ports = new Set<number>();
  for (const row of await deps.stacks.list()) {
    let list: number[];
    try {
      // Fast path: the same files (inode, size, change times) as last time → their ports.
      const dir = stackDir(deps.paths, row.name);
      const before = statKey(dir, flavour);
      const known = before === null ? undefined : cache.get(before);
      if (known) {
        for (const p of known) ports.add(p);
        continue;
      }
      const files = await loadFiles(deps, row, mode);
      if (files === null) continue;
      const key = PortsCache.key(flavour, files.compose, files.env);
      const cached = cache.get(key);
      if (cached) list = cached;
      else {
        try {
          list = stackPorts(files, flavour, deps.environ);
        } catch (e) {
          if (!(e instanceof OutsideSubset)) throw e;
          list = await toolPorts(deps, row.name, files);
        }
        cache.set(key, list);
      }
      const after = statKey(dir, flavour);
      if (after !== null && after === before) cache.set(after, list);
    } catch (e) {
      if (e instanceof AppError && e.code !== 'stack_unreadable') throw e;
      throw stackUnreadable(row.name);
    }
    for (const p of list) ports.add(p);
  }
  return ports;
}
