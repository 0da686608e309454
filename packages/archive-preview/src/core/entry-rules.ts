/**
 * Entry checks of 01 §3 rules 5–8, decided as each tar header arrives. Pure: the reader in
 * ../node/archive-reader.ts feeds it names and types.
 */
import { invalidArchive } from './errors.ts';
import { LIMITS } from './limits.ts';

export type EntryKind = 'file' | 'directory';

/** Top-level files and directories an archive may hold (rule 8). */
export const TOP_LEVEL_FILES = ['manifest.json', 'state.db', 'secrets.age', 'identity.age'] as const;
export const TOP_LEVEL_DIRS = ['custom', 'templates', 'stacks'] as const;

// C0 controls, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Rule 6: returns the entry's name (a directory's single trailing `/` dropped) or throws
 * `invalid_archive`. `raw` is the name after pax/long-name headers, decoded as UTF-8; a decoding
 * failure shows as U+FFFD and is refused.
 */
export function checkEntryName(raw: string, kind: EntryKind): string {
  const shown = raw.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200);
  if (raw.length === 0) throw invalidArchive('an entry has an empty name');
  if (raw.includes('\ufffd')) throw invalidArchive('an entry name is not valid UTF-8', shown);
  if (Buffer.byteLength(raw, 'utf8') > LIMITS.nameBytes) {
    throw invalidArchive(`an entry name is longer than ${LIMITS.nameBytes} bytes`, shown);
  }
  if (CONTROL.test(raw)) throw invalidArchive('an entry name contains a control character', shown);
  if (raw.includes('\\')) throw invalidArchive('an entry name contains a backslash', shown);
  if (raw.startsWith('/')) throw invalidArchive('an entry name is an absolute path', shown);
  let name = raw;
  if (name.endsWith('/')) {
    if (kind !== 'directory') throw invalidArchive('a file name ends in "/"', shown);
    name = name.slice(0, -1);
  }
  for (const segment of name.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw invalidArchive('an entry name has an empty, "." or ".." segment', shown);
    }
  }
  return name;
}

/** Rule 8: the first segment, and the size limits of the top-level files. */
export function checkTopLevel(name: string, kind: EntryKind, size: number): void {
  const slash = name.indexOf('/');
  const top = slash === -1 ? name : name.slice(0, slash);
  if (slash === -1 && kind === 'file') {
    if (!(TOP_LEVEL_FILES as readonly string[]).includes(name)) {
      throw invalidArchive(`"${name}" is not an entry a configuration archive holds`, name);
    }
    if (name === 'manifest.json' && size > LIMITS.manifestBytes) {
      throw invalidArchive(`manifest.json is larger than ${LIMITS.manifestBytes} bytes`, name);
    }
    if (name.endsWith('.age') && size > LIMITS.ageFileBytes) {
      throw invalidArchive(`${name} is larger than ${LIMITS.ageFileBytes} bytes`, name);
    }
    return;
  }
  if (!(TOP_LEVEL_DIRS as readonly string[]).includes(top)) {
    throw invalidArchive(`"${top}" is not an entry a configuration archive holds`, name);
  }
}

/**
 * Rule 7: no duplicate name, no name both a file and a directory, no file that is the parent of
 * another entry. Memory grows with the entry count, which rule 3 bounds.
 */
export class EntryNames {
  private readonly seen = new Map<string, EntryKind>();
  private readonly parents = new Set<string>();

  add(name: string, kind: EntryKind): void {
    const previous = this.seen.get(name);
    if (previous !== undefined) {
      throw invalidArchive(
        previous === kind ? 'an entry name appears twice' : 'a name is both a file and a directory',
        name,
      );
    }
    if (kind === 'file' && this.parents.has(name)) {
      throw invalidArchive('a file is the parent of another entry', name);
    }
    let at = name.indexOf('/');
    while (at !== -1) {
      const parent = name.slice(0, at);
      if (this.seen.get(parent) === 'file')
        throw invalidArchive('a file is the parent of another entry', name);
      this.parents.add(parent);
      at = name.indexOf('/', at + 1);
    }
    this.seen.set(name, kind);
  }
}
