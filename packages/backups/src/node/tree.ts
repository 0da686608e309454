/**
 * Reads a restored folder as tree nodes (lstat, never following a symbolic link), for the drill's
 * comparison with the snapshot's file list.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { NodeType, TreeNode } from '../core/drill.ts';

const typeOf = (st: import('node:fs').Stats): NodeType =>
  st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other';

/** Every entry below `root` (not `root` itself), paths relative to it. */
export async function readTree(root: string): Promise<TreeNode[]> {
  const out: TreeNode[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      const full = path.join(dir, e.name);
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      const st = await fs.lstat(full);
      const type = typeOf(st);
      out.push({
        path: r,
        type,
        size: type === 'file' ? st.size : null,
        mode: st.mode & 0o7777,
        uid: st.uid,
        gid: st.gid,
      });
      if (type === 'dir') await walk(full, r);
    }
  };
  await walk(root, '');
  return out;
}
