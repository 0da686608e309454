/**
 * What an smb.conf change takes away from connections that are already open (issue 24). Samba checks
 * `valid users` and `write list` when a client connects to a share; a reload changes what new
 * connections get, not what open ones have. Two smbcontrol messages reach open connections:
 *
 * - `close-denied-share <name>` closes the connections of users the new file no longer lets in (a
 *   user dropped from `valid users`), and leaves everyone else connected;
 * - `close-share <name>` closes every connection to the share: for a share whose section is gone or
 *   became closed (`available = no`), where nobody is let in any more.
 *
 * A user moved from `write list` to read-only keeps writing on a connection opened before the change
 * (Samba fixes read-only at connect time, and neither message changes it); the change applies at the
 * next connection. Pure: it compares the two rendered files.
 */

export interface ShareSection {
  /** `available = no` is absent. */
  open: boolean;
  /** `valid users`, lowercase names. */
  readers: readonly string[];
  /** `write list`, lowercase names. */
  writers: readonly string[];
}

export interface Revocations {
  /** Shares whose every connection must end (section removed or closed). */
  closeShare: string[];
  /** Shares where some user lost access (or where the previous access is unknown). */
  closeDenied: string[];
}

/** The share sections of a generated smb.conf (the renderer's own format, 06 §5.1). */
export function parseShareSections(text: string): Map<string, ShareSection> {
  const out = new Map<string, ShareSection>();
  let current: { name: string; open: boolean; readers: string[]; writers: string[] } | null = null;
  const flush = () => {
    if (current)
      out.set(current.name, { open: current.open, readers: current.readers, writers: current.writers });
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      flush();
      const name = header[1]!;
      current = name.toLowerCase() === 'global' ? null : { name, open: true, readers: [], writers: [] };
      continue;
    }
    if (!current) continue;
    const kv = /^([a-z ]+?)\s*=\s*(.*)$/i.exec(line);
    if (!kv) continue;
    const key = kv[1]!.toLowerCase();
    const value = kv[2]!.trim();
    if (key === 'available' && /^(no|false|0)$/i.test(value)) current.open = false;
    if (key === 'valid users') current.readers = value.split(/\s+/).filter(Boolean);
    if (key === 'write list') current.writers = value.split(/\s+/).filter(Boolean);
  }
  flush();
  return out;
}

/**
 * The messages that apply `after` to connections opened under `before`. `before = null` (what smbd
 * loaded is not known, e.g. the first reload after the service started): every open share gets
 * `close-denied-share`, which is harmless for users still let in.
 */
export function accessRevocations(before: string | null, after: string): Revocations {
  const next = parseShareSections(after);
  const closeShare: string[] = [];
  const closeDenied: string[] = [];
  if (before === null) {
    for (const [name, section] of next) (section.open ? closeDenied : closeShare).push(name);
    return { closeShare, closeDenied };
  }
  const previous = parseShareSections(before);
  for (const [name, was] of previous) {
    if (!was.open) continue;
    const now = next.get(name);
    if (!now?.open) {
      closeShare.push(name);
      continue;
    }
    const still = new Set(now.readers);
    if (was.readers.some((u) => !still.has(u))) closeDenied.push(name);
  }
  return { closeShare, closeDenied };
}

/**
 * Whether `after` lets anyone do what `before` did not: a share that is new or was closed is open,
 * or a user joined a share's `valid users` or `write list` (issue 32). Such a change must be
 * loaded by smbd before the request that made it answers, or the user's next connection is still
 * refused (`NT_STATUS_BAD_NETWORK_NAME` for a share smbd still has closed). `before = null` (what
 * smbd loaded is not known): any open share counts as granted.
 */
export function accessGranted(before: string | null, after: string): boolean {
  const next = parseShareSections(after);
  const previous = before === null ? new Map<string, ShareSection>() : parseShareSections(before);
  for (const [name, now] of next) {
    if (!now.open) continue;
    const was = previous.get(name);
    if (!was?.open) return true;
    const readers = new Set(was.readers);
    const writers = new Set(was.writers);
    if (now.readers.some((u) => !readers.has(u)) || now.writers.some((u) => !writers.has(u))) return true;
  }
  return false;
}
