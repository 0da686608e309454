/**
 * The live side of the file categories (01 §4.7) and the export's file list (01 §1.2): walks
 * `/etc/appliance` (`*.custom.conf`), the catalog and the stacks through a small filesystem port,
 * never following a symbolic link. Only the three roots are touched (nothing under `/mnt`).
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { LOGICAL, type HostPaths } from '@appliance/common';
import { compareCodePoints } from '../core/codepoint.ts';
import {
  type FileCategory,
  type LiveFile,
  type LiveFiles,
  type LiveRoot,
  type PathKind,
  STACK_FILES,
} from '../core/files.ts';
import { isStackName } from '../core/limits.ts';

/** The filesystem operations the walkers use, on real paths (tests wrap it to record paths). */
export interface FsPort {
  /** `lstat`, or null when the path does not exist. */
  lstat(real: string): Promise<Stats | null>;
  readdir(real: string): Promise<string[]>;
  sha256(real: string): Promise<string>;
}

export const nodeFs: FsPort = {
  async lstat(real) {
    try {
      return await fs.lstat(real);
    } catch (err) {
      if (
        (err as NodeJS.ErrnoException).code === 'ENOENT' ||
        (err as NodeJS.ErrnoException).code === 'ENOTDIR'
      )
        return null;
      throw err;
    }
  },
  readdir: (real) => fs.readdir(real),
  async sha256(real) {
    const hash = createHash('sha256');
    const handle = await fs.open(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      await pipeline(handle.createReadStream({ autoClose: false }), hash);
    } finally {
      await handle.close();
    }
    return hash.digest('hex');
  },
};

export const kindOf = (st: Stats | null): PathKind =>
  st === null
    ? 'missing'
    : st.isSymbolicLink()
      ? 'symlink'
      : st.isDirectory()
        ? 'directory'
        : st.isFile()
          ? 'file'
          : 'other';

/** The logical root of each file category. */
export const CATEGORY_ROOT: Record<FileCategory, string> = {
  custom_config: LOGICAL.etcDir,
  templates: LOGICAL.catalogDir,
  stacks: LOGICAL.stacksDir,
};

function realRoot(paths: HostPaths, category: FileCategory): string {
  return category === 'custom_config'
    ? paths.etcDir
    : category === 'templates'
      ? paths.catalogDir
      : paths.stacksDir;
}

interface WalkEntry {
  rel: string;
  kind: PathKind;
}

/** Every entry below `root` (directories recursed, symbolic links never followed). */
async function* walk(fsp: FsPort, root: string, rel = ''): AsyncGenerator<WalkEntry> {
  const dir = rel === '' ? root : `${root}/${rel}`;
  const names = (await fsp.readdir(dir)).sort(compareCodePoints);
  for (const name of names) {
    const childRel = rel === '' ? name : `${rel}/${name}`;
    const kind = kindOf(await fsp.lstat(`${root}/${childRel}`));
    if (kind === 'missing') continue;
    yield { rel: childRel, kind };
    if (kind === 'directory') yield* walk(fsp, root, childRel);
  }
}

async function listCategory(
  paths: HostPaths,
  fsp: FsPort,
  category: FileCategory,
  hash: boolean,
): Promise<LiveRoot> {
  const root = realRoot(paths, category);
  const rootKind = kindOf(await fsp.lstat(root));
  const files: LiveFile[] = [];
  const out: LiveRoot = { root: CATEGORY_ROOT[category], rootKind, files };
  if (rootKind !== 'directory') return out;
  const add = async (rel: string, kind: PathKind) => {
    files.push(
      kind === 'file' && hash ? { rel, kind, sha256: await fsp.sha256(`${root}/${rel}`) } : { rel, kind },
    );
  };
  if (category === 'custom_config') {
    for await (const e of walk(fsp, root)) if (e.rel.endsWith('.custom.conf')) await add(e.rel, e.kind);
  } else if (category === 'templates') {
    for await (const e of walk(fsp, root)) if (e.kind !== 'directory') await add(e.rel, e.kind);
  } else {
    for (const name of (await fsp.readdir(root)).sort(compareCodePoints)) {
      if (!isStackName(name) || kindOf(await fsp.lstat(`${root}/${name}`)) !== 'directory') continue;
      for (const file of STACK_FILES) {
        const kind = kindOf(await fsp.lstat(`${root}/${name}/${file}`));
        if (kind !== 'missing') await add(`${name}/${file}`, kind);
      }
    }
  }
  files.sort((a, b) => compareCodePoints(a.rel, b.rel));
  return out;
}

/** The live files of the three categories, hashed (the preview). */
export async function listLiveFiles(paths: HostPaths, fsp: FsPort = nodeFs, hash = true): Promise<LiveFiles> {
  return {
    custom_config: await listCategory(paths, fsp, 'custom_config', hash),
    templates: await listCategory(paths, fsp, 'templates', hash),
    stacks: await listCategory(paths, fsp, 'stacks', hash),
  };
}

/**
 * `lstat` of every component of each logical path, from its category root down, stopping at the
 * first missing or non-directory component (what `checkPathComponents` needs).
 */
export async function inspectPaths(
  paths: HostPaths,
  logical: readonly string[],
  fsp: FsPort = nodeFs,
): Promise<Map<string, PathKind>> {
  const kinds = new Map<string, PathKind>();
  for (const target of logical) {
    const root = Object.values(CATEGORY_ROOT).find((r) => target.startsWith(`${r}/`));
    if (!root) continue;
    let current = root;
    for (const part of target.slice(root.length + 1).split('/')) {
      current = `${current}/${part}`;
      let kind = kinds.get(current);
      if (kind === undefined) {
        kind = kindOf(await fsp.lstat(paths.real(current)));
        kinds.set(current, kind);
      }
      if (kind !== 'directory') break;
    }
  }
  return kinds;
}
