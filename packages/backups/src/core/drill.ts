/**
 * Restore drills (issue 23): restore the latest snapshot of each part into a scratch folder with
 * restic's `--verify` (every restored file is read back and checked against the snapshot's own
 * content hashes), then compare the restored tree with the snapshot's file list (`restic ls`):
 * every entry there, with its type, size, permissions and owner. When the whole snapshot does not
 * fit the scratch space, a sample of its files (chosen by a seeded hash, so each drill reads
 * others) that fits is restored instead.
 */

export type NodeType = 'file' | 'dir' | 'symlink' | 'other';

export interface TreeNode {
  /** Relative to the snapshot root, `/`-separated, no leading `/`. */
  path: string;
  type: NodeType;
  /** Bytes, files only. */
  size: number | null;
  /** Permission bits with setuid/setgid/sticky (0o7777). */
  mode: number;
  uid: number;
  gid: number;
}

// Go's os.FileMode bits, as restic stores them.
const GO_SETUID = 1 << 23;
const GO_SETGID = 1 << 22;
const GO_STICKY = 1 << 20;

/** A `restic ls --json` node → a tree node (null for the snapshot line and unknown shapes). */
export function nodeFromLs(node: Record<string, unknown>): TreeNode | null {
  if (node['struct_type'] !== 'node' || typeof node['path'] !== 'string') return null;
  const t = node['type'];
  const type: NodeType = t === 'file' ? 'file' : t === 'dir' ? 'dir' : t === 'symlink' ? 'symlink' : 'other';
  const goMode = typeof node['mode'] === 'number' ? node['mode'] : 0;
  const mode =
    (goMode & 0o777) |
    (goMode & GO_SETUID ? 0o4000 : 0) |
    (goMode & GO_SETGID ? 0o2000 : 0) |
    (goMode & GO_STICKY ? 0o1000 : 0);
  return {
    path: (node['path'] as string).replace(/^\/+/, ''),
    type,
    size: type === 'file' ? (typeof node['size'] === 'number' ? node['size'] : 0) : null,
    mode,
    uid: typeof node['uid'] === 'number' ? node['uid'] : 0,
    gid: typeof node['gid'] === 'number' ? node['gid'] : 0,
  };
}

export interface TreeDifference {
  path: string;
  what: 'missing' | 'extra' | 'type' | 'size' | 'mode' | 'owner';
  expected?: string | number;
  found?: string | number;
}

/**
 * Differences between the snapshot's list (`expected`) and what was restored (`actual`).
 * `only`: a sample restore — compare just these paths (and what is below them); the folders restic
 * creates on the way to them are not compared. `modes`/`owners` false on a scratch filesystem that
 * keeps neither (exFAT).
 */
export function compareTrees(
  expected: readonly TreeNode[],
  actual: readonly TreeNode[],
  options: { modes: boolean; owners: boolean; only?: readonly string[] } = { modes: true, owners: true },
): TreeDifference[] {
  const inScope = (p: string) => !options.only || options.only.some((o) => p === o || p.startsWith(`${o}/`));
  const found = new Map(actual.map((n) => [n.path, n]));
  const want = new Map(expected.filter((n) => inScope(n.path)).map((n) => [n.path, n]));
  const out: TreeDifference[] = [];
  for (const [p, e] of [...want].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const a = found.get(p);
    if (!a) {
      out.push({ path: p, what: 'missing' });
      continue;
    }
    if (a.type !== e.type) {
      out.push({ path: p, what: 'type', expected: e.type, found: a.type });
      continue;
    }
    if (e.type === 'file' && a.size !== e.size)
      out.push({ path: p, what: 'size', expected: e.size ?? 0, found: a.size ?? 0 });
    if (options.modes && e.type !== 'symlink' && a.mode !== e.mode)
      out.push({ path: p, what: 'mode', expected: e.mode.toString(8), found: a.mode.toString(8) });
    if (options.owners && (a.uid !== e.uid || a.gid !== e.gid))
      out.push({ path: p, what: 'owner', expected: `${e.uid}:${e.gid}`, found: `${a.uid}:${a.gid}` });
  }
  for (const p of [...found.keys()].sort())
    if (inScope(p) && !want.has(p)) out.push({ path: p, what: 'extra' });
  return out;
}

/** FNV-1a, 32 bits: a stable pseudo-random order of paths for a seed. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The whole snapshot when its files fit `budgetBytes`; else a sample of files (at most `maxFiles`)
 * in an order the seed decides, taken while they fit.
 */
export function drillSample(
  nodes: readonly TreeNode[],
  budgetBytes: number,
  seed: string,
  maxFiles = 1000,
): { whole: true; bytes: number } | { whole: false; paths: string[]; bytes: number } {
  const files = nodes.filter((n) => n.type === 'file');
  const total = files.reduce((s, n) => s + (n.size ?? 0), 0);
  if (total <= budgetBytes) return { whole: true, bytes: total };
  const ordered = [...files].sort((a, b) => fnv(`${seed}:${a.path}`) - fnv(`${seed}:${b.path}`));
  const paths: string[] = [];
  let bytes = 0;
  for (const f of ordered) {
    if (paths.length >= maxFiles) break;
    if (bytes + (f.size ?? 0) > budgetBytes) continue;
    paths.push(f.path);
    bytes += f.size ?? 0;
  }
  return { whole: false, paths: paths.sort(), bytes };
}
