/**
 * Restore (issue 23): a whole snapshot of a share or of a stack's app data, or chosen paths of it,
 * into its place (typed confirmation; what is there now is moved aside first, never deleted) or
 * into a new folder. Paths are relative to the snapshot's root, as `GET /backups/snapshots/…/files`
 * and `restic ls` show them without the leading `/` (a share's snapshot holds the share's top
 * level; an app-data snapshot holds the folders below the appdata location, e.g.
 * `appdata/web/config.xml`).
 */
import { type Refusal, refuse, type ValidationIssue } from '@appliance/common';

/** A request field that does not fit (`bad_request`, with its issues). */
const badRequest = (issues: ValidationIssue[]): Refusal =>
  refuse(
    'bad_request',
    `The request is not valid: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`,
    { issues },
  );
import { type PartRef, partLabel } from './parts.ts';

export const MAX_RESTORE_PATHS = 256;

/** `RESTORE share media`, `RESTORE stack web`: the typed confirmation of a restore into place. */
export const restorePhrase = (part: PartRef): string => `RESTORE ${partLabel(part)}`;

/** `YYYYMMDDTHHMMSSZ` of an instant (the moved-aside suffix). */
export const stamp = (at: Date): string =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');

/** Checks and normalizes chosen paths: relative, no `.`/`..`/empty segment; nested ones collapse. */
export function checkRestorePaths(paths: readonly string[]): { paths: string[] } | { error: Refusal } {
  const issues: { path: string; message: string }[] = [];
  const clean: string[] = [];
  paths.forEach((raw, i) => {
    const p = raw.endsWith('/') ? raw.slice(0, -1) : raw;
    const segs = p.split('/');
    if (p === '' || raw.startsWith('/'))
      issues.push({
        path: `paths.${i}`,
        message: 'must be a path relative to the snapshot, e.g. photos/2024',
      });
    else if (segs.some((s) => s === '' || s === '.' || s === '..'))
      issues.push({ path: `paths.${i}`, message: 'must not hold empty, "." or ".." segments' });
    else if (/[\0\n]/.test(p))
      issues.push({ path: `paths.${i}`, message: 'must not hold NUL or newline characters' });
    else clean.push(p);
  });
  if (issues.length > 0) return { error: badRequest(issues) };
  clean.sort();
  const out: string[] = [];
  for (const p of clean) if (!out.some((o) => p === o || p.startsWith(`${o}/`))) out.push(p);
  return { paths: out };
}

/** restic's `--include` pattern matching exactly this path (glob characters escaped). */
export const includePattern = (rel: string): string => `/${rel.replace(/[\\*?[\]]/g, (c) => `\\${c}`)}`;

/** `<name>.before-restore-<stamp>`, or `-2`, `-3`… when that is taken. */
export function asideName(name: string, at: Date, taken: (candidate: string) => boolean): string {
  const base = `${name}.before-restore-${stamp(at)}`;
  if (!taken(base)) return base;
  for (let n = 2; ; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
}

/** Logical roots a folder restore may write under (nothing of the system, nothing of a disk slot). */
export const FOLDER_ROOTS = ['/mnt/user/', '/mnt/cache/'] as const;

/** A new-folder target: absolute, under /mnt/user/<share>/ or /mnt/cache/, no `.`/`..`. */
export function checkFolderTarget(folder: string): Refusal | null {
  const segs = folder.split('/').slice(1);
  const ok =
    folder.startsWith('/') &&
    !segs.some((s) => s === '' || s === '.' || s === '..') &&
    ((folder.startsWith('/mnt/user/') && segs.length >= 4) ||
      (folder.startsWith('/mnt/cache/') && segs.length >= 3));
  return ok
    ? null
    : badRequest([
        {
          path: 'folder',
          message:
            'must be a new folder inside a share (/mnt/user/<share>/<folder>) or the appdata location (/mnt/cache/<folder>)',
        },
      ]);
}

/**
 * What a restore writes, relative to the part's base (the share folder, or the appdata location):
 * the chosen paths, or for a whole snapshot its top-level entries (a share) or the app-data folders
 * it holds (a stack, from its `path:` tags).
 */
export function restoreRoots(input: {
  part: PartRef;
  chosen: readonly string[];
  /** Top-level entry names of the snapshot (a share's). */
  topLevel: readonly string[];
  /** Logical app-data folders of the snapshot (its `path:` tags). */
  tagRoots: readonly string[];
  /** Logical appdata location, `/mnt/cache`. */
  appdataRoot: string;
}): string[] {
  if (input.chosen.length > 0) return [...input.chosen];
  if (input.part.kind === 'stack')
    return input.tagRoots
      .filter((r) => r.startsWith(`${input.appdataRoot}/`))
      .map((r) => r.slice(input.appdataRoot.length + 1))
      .sort();
  return [...input.topLevel].sort();
}
