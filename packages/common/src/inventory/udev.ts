/** Filesystem facts of one block node, from udev's database or `blkid -p -o export` (03 §2.2 step 4). */
export interface FsFacts {
  filesystem: string | null;
  label: string | null;
  fsUuid: string | null;
  /** FAT boot-sector copy of the label (07 §5). */
  labelFatboot: string | null;
}

export const NO_FILESYSTEM: FsFacts = { filesystem: null, label: null, fsUuid: null, labelFatboot: null };

const emptyToNull = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);

/** Decodes udev's `\xNN` escapes (bytes of UTF-8) in `ID_FS_LABEL_ENC`. */
export function decodeUdevEscapes(value: string): string {
  if (!value.includes('\\x')) return value;
  const bytes: number[] = [];
  for (let i = 0; i < value.length; ) {
    const m = /^\\x([0-9a-fA-F]{2})/.exec(value.slice(i, i + 4));
    if (m?.[1]) {
      bytes.push(Number.parseInt(m[1], 16));
      i += 4;
    } else {
      const cp = value.codePointAt(i) as number;
      bytes.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Parses a `/run/udev/data/b<maj>:<min>` record. A record without `ID_FS_TYPE` means no filesystem. */
export function parseUdevRecord(text: string): FsFacts {
  const env = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('E:')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    env.set(line.slice(2, eq), line.slice(eq + 1));
  }
  const filesystem = emptyToNull(env.get('ID_FS_TYPE'));
  if (filesystem === null) return NO_FILESYSTEM;
  const enc = emptyToNull(env.get('ID_FS_LABEL_ENC'));
  return {
    filesystem,
    label: enc !== null ? emptyToNull(decodeUdevEscapes(enc)) : emptyToNull(env.get('ID_FS_LABEL')),
    fsUuid: emptyToNull(env.get('ID_FS_UUID')),
    labelFatboot: emptyToNull(env.get('ID_FS_LABEL_FATBOOT')),
  };
}

/**
 * Parses `blkid -p -o export` output (KEY=value lines; blkid escapes unsafe characters with a
 * backslash). Output without TYPE means no filesystem.
 */
export function parseBlkidExport(text: string): FsFacts {
  const env = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    env.set(line.slice(0, eq), line.slice(eq + 1).replace(/\\(.)/g, '$1'));
  }
  const filesystem = emptyToNull(env.get('TYPE'));
  if (filesystem === null) return NO_FILESYSTEM;
  return {
    filesystem,
    label: emptyToNull(env.get('LABEL')),
    fsUuid: emptyToNull(env.get('UUID')),
    labelFatboot: emptyToNull(env.get('LABEL_FATBOOT')),
  };
}
