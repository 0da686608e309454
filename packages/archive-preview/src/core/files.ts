/**
 * File groups and `restore_path_unsafe` (01 §4.7). Pure: the adapter lists the live roots and
 * inspects the paths this module asks for; the decisions happen here.
 */
import { compareCodePoints } from './codepoint.ts';
import type { Changes, Item } from './db-groups.ts';
import { isStackName } from './limits.ts';
import type { Category, Kind } from './registry.ts';

export type FileCategory = 'custom_config' | 'templates' | 'stacks';
export const FILE_CATEGORIES: readonly FileCategory[] = ['custom_config', 'templates', 'stacks'];

export const FILE_KIND: Record<FileCategory, Kind> = {
  custom_config: 'custom_config_file',
  templates: 'template_file',
  stacks: 'stack_file',
};
export const ARCHIVE_PREFIX: Record<FileCategory, string> = {
  custom_config: 'custom/',
  templates: 'templates/',
  stacks: 'stacks/',
};
export const STACK_FILES = ['docker-compose.yml', 'meta.json'] as const;

/** What `lstat` says about a path (never following a symbolic link). */
export type PathKind = 'file' | 'directory' | 'symlink' | 'other' | 'missing';

/** A live path that counts in a category, relative to the category's root. */
export interface LiveFile {
  rel: string;
  kind: PathKind;
  /** SHA-256 of a regular file; absent otherwise. */
  sha256?: string;
}

export interface LiveRoot {
  /** Logical path of the root (e.g. `/etc/appliance`). */
  root: string;
  rootKind: PathKind;
  files: readonly LiveFile[];
}

export type LiveFiles = Readonly<Record<FileCategory, LiveRoot>>;

export const UNSAFE_REASON = {
  symlink: 'is a symbolic link, which is never followed',
  notDirectory: 'is not a directory',
  notRegular: 'is not a regular file',
  notCustomConf: 'is not a *.custom.conf file',
  notStackFile: "is not a stack's docker-compose.yml or meta.json",
} as const;

export interface Unsafe {
  path: string;
  reason: string;
}

export const unsafeMessage = (u: Unsafe): string => `Restoring files: ${u.path} ${u.reason}.`;

/** Archive files of a category: relative name → SHA-256. */
export function archiveFilesOf(
  category: FileCategory,
  archive: ReadonlyMap<string, string>,
): Map<string, string> {
  const prefix = ARCHIVE_PREFIX[category];
  const out = new Map<string, string>();
  for (const [name, sha] of archive) if (name.startsWith(prefix)) out.set(name.slice(prefix.length), sha);
  return out;
}

/** Whether an archive entry under `stacks/` is `<valid stack name>/{docker-compose.yml,meta.json}`. */
export function isStackFileEntry(rel: string): boolean {
  const parts = rel.split('/');
  return (
    parts.length === 2 &&
    isStackName(parts[0] as string) &&
    (STACK_FILES as readonly string[]).includes(parts[1] as string)
  );
}

const join = (root: string, rel: string) => `${root.replace(/\/$/, '')}/${rel}`;

function fileChanges(
  archive: ReadonlyMap<string, string>,
  live: LiveRoot,
): { added: string[]; changed: string[]; removed: string[] } {
  const liveMap = new Map(live.files.map((f) => [f.rel, f]));
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [rel, sha] of archive) {
    const other = liveMap.get(rel);
    if (other === undefined) added.push(rel);
    else if (other.kind !== 'file' || other.sha256 !== sha) changed.push(rel);
  }
  for (const f of live.files) if (!archive.has(f.rel)) removed.push(f.rel);
  const sort = (l: string[]) => l.sort(compareCodePoints);
  return { added: sort(added), changed: sort(changed), removed: sort(removed) };
}

/**
 * The logical paths whose components the adapter must inspect (`lstat` each, from the root
 * down): every `custom_config` or `stacks` path to be added or changed, and each restorable
 * stack's `.env` (when secrets open). Returned in a stable order.
 */
export function pathsToInspect(
  archive: ReadonlyMap<string, string>,
  live: LiveFiles,
  stacksWithEnv: readonly string[],
): string[] {
  const out = new Set<string>();
  for (const category of ['custom_config', 'stacks'] as const) {
    const files = archiveFilesOf(category, archive);
    const c = fileChanges(files, live[category]);
    for (const rel of [...c.added, ...c.changed]) out.add(join(live[category].root, rel));
  }
  for (const name of restorableEnvStacks(archive, stacksWithEnv))
    out.add(join(live.stacks.root, `${name}/.env`));
  return [...out];
}

function restorableEnvStacks(
  archive: ReadonlyMap<string, string>,
  stacksWithEnv: readonly string[],
): string[] {
  const archived = new Set(archiveStackNames(archive));
  return stacksWithEnv.filter((n) => archived.has(n) && isStackName(n));
}

/** 01 §4.8 step 1: the sorted, unique `<name>` of the entries `stacks/<name>/…`. */
export function archiveStackNames(archive: ReadonlyMap<string, string> | Iterable<string>): string[] {
  const names = new Set<string>();
  const keys = archive instanceof Map ? archive.keys() : (archive as Iterable<string>);
  for (const name of keys) {
    if (!name.startsWith('stacks/')) continue;
    const rest = name.slice('stacks/'.length);
    const slash = rest.indexOf('/');
    if (slash > 0) names.add(rest.slice(0, slash));
  }
  return [...names].sort(compareCodePoints);
}

/**
 * The first problem on the way to `path` from `root`: each component below the root must be a
 * directory (or missing, after which nothing more is checked), the last a regular file (or missing).
 */
export function checkPathComponents(
  root: string,
  path: string,
  kinds: ReadonlyMap<string, PathKind>,
): Unsafe | null {
  const rel = path.slice(root.replace(/\/$/, '').length + 1);
  const parts = rel.split('/');
  let current = root.replace(/\/$/, '');
  for (let i = 0; i < parts.length; i++) {
    current = `${current}/${parts[i]}`;
    const kind = kinds.get(current) ?? 'missing';
    if (kind === 'missing') return null;
    if (kind === 'symlink') return { path: current, reason: UNSAFE_REASON.symlink };
    const last = i === parts.length - 1;
    if (!last && kind !== 'directory') return { path: current, reason: UNSAFE_REASON.notDirectory };
    if (last && kind !== 'file') return { path: current, reason: UNSAFE_REASON.notRegular };
  }
  return null;
}

export interface FilesDecision {
  unsafe: Unsafe | null;
  /** The three file groups' changes, by category (all empty when `unsafe`). */
  changes: Map<Category, Changes>;
}

/**
 * Decides the file groups and the first unsafe path. `kinds` holds the `lstat` result of every
 * component of the paths `pathsToInspect` returned.
 */
export function decideFiles(input: {
  archive: ReadonlyMap<string, string>;
  live: LiveFiles;
  kinds: ReadonlyMap<string, PathKind>;
  /** Stacks whose `.env` secrets.age carries (only when it opened). */
  stacksWithEnv: readonly string[];
}): FilesDecision {
  const unsafe = firstUnsafe(input);
  const changes = new Map<Category, Changes>();
  for (const category of FILE_CATEGORIES) {
    const empty: Changes = { added: [], changed: [], removed: [] };
    if (unsafe) {
      changes.set(category, empty);
      continue;
    }
    const c = fileChanges(archiveFilesOf(category, input.archive), input.live[category]);
    const items = (l: string[]): Item[] => l.map((name) => ({ kind: FILE_KIND[category], name }));
    changes.set(category, { added: items(c.added), changed: items(c.changed), removed: items(c.removed) });
  }
  return { unsafe, changes };
}

function firstUnsafe(input: {
  archive: ReadonlyMap<string, string>;
  live: LiveFiles;
  kinds: ReadonlyMap<string, PathKind>;
  stacksWithEnv: readonly string[];
}): Unsafe | null {
  for (const category of FILE_CATEGORIES) {
    const files = archiveFilesOf(category, input.archive);
    const rels = [...files.keys()].sort(compareCodePoints);
    // Archive entries first.
    if (category === 'custom_config') {
      const bad = rels.find((rel) => !rel.endsWith('.custom.conf'));
      if (bad !== undefined) return { path: `custom/${bad}`, reason: UNSAFE_REASON.notCustomConf };
    }
    if (category === 'stacks') {
      const bad = rels.find((rel) => !isStackFileEntry(rel));
      if (bad !== undefined) return { path: `stacks/${bad}`, reason: UNSAFE_REASON.notStackFile };
    }
    // Then live paths, sorted.
    const live = input.live[category];
    const problems: Unsafe[] = [];
    if (live.rootKind === 'symlink') problems.push({ path: live.root, reason: UNSAFE_REASON.symlink });
    else if (live.rootKind !== 'directory' && live.rootKind !== 'missing') {
      problems.push({ path: live.root, reason: UNSAFE_REASON.notDirectory });
    }
    if (problems.length === 0 && category !== 'templates') {
      for (const f of live.files) {
        if (f.kind === 'symlink')
          problems.push({ path: join(live.root, f.rel), reason: UNSAFE_REASON.symlink });
        else if (f.kind !== 'file')
          problems.push({ path: join(live.root, f.rel), reason: UNSAFE_REASON.notRegular });
      }
      const c = fileChanges(files, live);
      for (const rel of [...c.added, ...c.changed]) {
        const u = checkPathComponents(live.root, join(live.root, rel), input.kinds);
        if (u) problems.push(u);
      }
      if (category === 'stacks') {
        for (const name of restorableEnvStacks(input.archive, input.stacksWithEnv)) {
          const u = checkPathComponents(live.root, join(live.root, `${name}/.env`), input.kinds);
          if (u) problems.push(u);
        }
      }
    }
    problems.sort((a, b) => compareCodePoints(a.path, b.path));
    if (problems[0]) return problems[0];
  }
  return null;
}
