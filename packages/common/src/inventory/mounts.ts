/** `/proc/self/mountinfo` and `/proc/swaps`, parsed once per inventory read (03 §2.2 step 5). */
export interface MountInfoEntry {
  major: number;
  minor: number;
  /** Mount target on this machine (real path, octal escapes decoded). */
  target: string;
  fsType: string;
  source: string;
}

export interface SwapEntry {
  file: string;
  type: string;
}

/** Decodes the kernel's octal escapes (`\040` for a space) in mountinfo fields. */
export const decodeOctal = (s: string): string =>
  s.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));

/** `id parent maj:min root target options [optional…] - fstype source superoptions`. */
export function parseMountInfo(text: string): MountInfoEntry[] {
  const out: MountInfoEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const fields = line.split(' ');
    const sep = fields.indexOf('-', 6);
    const devField = fields[2];
    const target = fields[4];
    const fsType = fields[sep + 1];
    const source = fields[sep + 2];
    if (sep < 0 || !devField || target === undefined || fsType === undefined || source === undefined)
      continue;
    const [maj, min] = devField.split(':').map((n) => Number.parseInt(n, 10));
    if (maj === undefined || min === undefined || Number.isNaN(maj) || Number.isNaN(min)) continue;
    out.push({
      major: maj,
      minor: min,
      target: decodeOctal(target),
      fsType: decodeOctal(fsType),
      source: decodeOctal(source),
    });
  }
  return out;
}

/** `Filename Type Size Used Priority`, header line skipped. */
export function parseSwaps(text: string): SwapEntry[] {
  return text
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f): f is [string, string, ...string[]] => f.length >= 2 && f[0] !== '' && f[1] !== undefined)
    .map(([file, type]) => ({ file: decodeOctal(file), type }));
}

/** The mount holding `file`: the longest target that is `file` or a parent of it; the last entry wins. */
export function mountHolding(mounts: readonly MountInfoEntry[], file: string): MountInfoEntry | null {
  let best: MountInfoEntry | null = null;
  for (const m of mounts) {
    const t = m.target;
    const holds = t === '/' || file === t || file.startsWith(`${t}/`);
    if (!holds) continue;
    if (best === null || t.length >= best.target.length) best = m;
  }
  return best;
}

/** The last mountinfo entry at exactly `target` (later mounts hide earlier ones). */
export function lastMountAt(mounts: readonly MountInfoEntry[], target: string): MountInfoEntry | null {
  let last: MountInfoEntry | null = null;
  for (const m of mounts) if (m.target === target) last = m;
  return last;
}
