/** Stack folders and files (02 §11.2–§11.3): creation, regeneration of missing files, reading. */
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError, fsyncDir, type HostPaths, isAtomicWriteTemp, writeFileAtomic } from '@appliance/common';
import type { StackRow, StackTemplateRef } from './stack-store.ts';

export const COMPOSE_NAMES = ['docker-compose.yml', 'docker-compose.yaml', 'compose.yml', 'compose.yaml'];

export interface StackMeta {
  name: string;
  template: StackTemplateRef | null;
  installedAt: string;
}

/** `JSON.stringify(meta, null, 2) + "\n"` with keys in the documented order. */
export function metaJson(meta: StackMeta): string {
  const ordered = {
    name: meta.name,
    template: meta.template
      ? { source: meta.template.source, id: meta.template.id, revision: meta.template.revision }
      : null,
    installedAt: meta.installedAt,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** UTC whole seconds: `2026-09-30T12:00:00Z`. */
export const wholeSeconds = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

export const stackDir = (paths: HostPaths, name: string): string => path.join(paths.stacksDir, name);
export const logicalStackDir = (name: string): string => `/var/lib/appliance/stacks/${name}`;

const unsafe = (name: string, logical: string) =>
  new AppError(
    409,
    'stack_dir_unsafe',
    `${logical} is a symbolic link or not a directory; move it away and try again.`,
    { stack: name, path: logical },
  );

async function lstatOrNull(p: string) {
  try {
    return await fs.lstat(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Makes sure the stacks root is a real directory (created 0755 when absent). */
export async function ensureStacksRoot(paths: HostPaths, name: string): Promise<void> {
  const root = paths.stacksDir;
  const st = await lstatOrNull(root);
  if (st === null) {
    await fs.mkdir(path.dirname(root), { recursive: true, mode: 0o700 });
    await fs.mkdir(root, { mode: 0o755 }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    await fs.chmod(root, 0o755);
    return;
  }
  if (st.isSymbolicLink() || !st.isDirectory()) throw unsafe(name, '/var/lib/appliance/stacks');
}

/**
 * Step 3 of §11.2: refuses an unsafe or Compose-holding folder. Returns whether the folder
 * already exists (adopted) or must be made.
 */
export async function prepareStackDir(paths: HostPaths, name: string): Promise<{ exists: boolean }> {
  await ensureStacksRoot(paths, name);
  const dir = stackDir(paths, name);
  const st = await lstatOrNull(dir);
  if (st === null) return { exists: false };
  if (st.isSymbolicLink() || !st.isDirectory()) throw unsafe(name, logicalStackDir(name));
  for (const file of COMPOSE_NAMES) {
    if ((await lstatOrNull(path.join(dir, file))) !== null)
      throw new AppError(
        409,
        'stack_dir_exists',
        `${logicalStackDir(name)} already holds ${file}; remove the folder or choose another stack name.`,
        { stack: name, path: `${logicalStackDir(name)}/${file}` },
      );
  }
  return { exists: true };
}

export interface StackFileSet {
  compose: string;
  env: string;
  meta: StackMeta;
}

/** Writes the three files atomically (.env 0600, the others 0644); the folder is 0755. */
export async function writeStackFiles(dir: string, files: StackFileSet): Promise<void> {
  await fs.mkdir(dir, { mode: 0o755 }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
  await fs.chmod(dir, 0o755);
  await writeFileAtomic(path.join(dir, '.env'), files.env, { mode: 0o600 });
  await writeFileAtomic(path.join(dir, 'docker-compose.yml'), files.compose, { mode: 0o644 });
  await writeFileAtomic(path.join(dir, 'meta.json'), metaJson(files.meta), { mode: 0o644 });
  await fsyncDir(path.dirname(dir));
}

const STACK_FILE_NAMES = ['.env', 'docker-compose.yml', 'meta.json'];

/**
 * Removes the temp files of interrupted atomic writes of the three stack files
 * (`.<file>.<hex>.tmp`, see writeFileAtomic). Only a crash mid-write leaves one: the crash tests
 * of issue 9 found that a kill during an install left such a file, so the folder could not be
 * removed at startup and stayed without its row. Returns the names removed.
 */
export async function removeStackTemps(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const temps = names.filter((n) => STACK_FILE_NAMES.some((f) => isAtomicWriteTemp(n, f)));
  for (const n of temps) await fs.rm(path.join(dir, n), { force: true });
  return temps;
}

/**
 * Removes what a failed creation wrote: the three files (and temp files of interrupted writes of
 * them), and the folder when this call made it.
 */
export async function undoStackFiles(dir: string, madeFolder: boolean): Promise<void> {
  for (const f of STACK_FILE_NAMES) await fs.rm(path.join(dir, f), { force: true });
  await removeStackTemps(dir);
  if (madeFolder) await fs.rm(dir, { recursive: true, force: true });
}

/** Reads a regular file without following a symbolic link; null when it does not exist. */
export async function readNoFollow(file: string): Promise<string | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

export const rowMeta = (row: StackRow): StackMeta => ({
  name: row.name,
  template: row.template,
  installedAt: row.installedAt,
});
