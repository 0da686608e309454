/**
 * Removes a folder strictly below a root without following a symbolic link: every component from
 * the root down is checked with lstat (a symlink anywhere on the way → refused, nothing removed),
 * the folder is first renamed to a hidden name beside it (a rename never follows the last
 * component), then removed; `fs.rm` unlinks links found inside, never their targets.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export type RemoveOutcome = 'removed' | 'missing' | 'symlink' | 'not_a_folder' | 'outside';

export async function removeFolderUnder(root: string, folder: string): Promise<RemoveOutcome> {
  const rel = path.relative(root, folder);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return 'outside';
  const rootSt = await fs.lstat(root).catch(() => null);
  if (!rootSt) return 'missing';
  if (!rootSt.isDirectory()) return rootSt.isSymbolicLink() ? 'symlink' : 'not_a_folder';
  let at = root;
  for (const seg of rel.split(path.sep)) {
    at = path.join(at, seg);
    const st = await fs.lstat(at).catch(() => null);
    if (!st) return 'missing';
    if (st.isSymbolicLink()) return 'symlink';
    if (!st.isDirectory()) return 'not_a_folder';
  }
  const trash = path.join(path.dirname(folder), `.removing-${path.basename(folder)}-${process.pid}`);
  await fs.rename(folder, trash);
  const st = await fs.lstat(trash);
  if (!st.isDirectory()) return 'not_a_folder';
  await fs.rm(trash, { recursive: true, force: true });
  return 'removed';
}
