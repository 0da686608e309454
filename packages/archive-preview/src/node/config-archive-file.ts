import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fsyncDir, type HostPaths } from '@appliance/common';
import { type ExportDeps, exportFilename, startExport } from './export.ts';

/**
 * An export written beside the other archives, `<backupsDir>/<prefix>-<stamp>.tar.zst` (0600,
 * fsynced, renamed into place: never half an archive under its name). Resolves with its logical
 * path. The import writes `pre-import-…`, an update `pre-update-…`.
 */
export async function writeConfigArchive(
  paths: HostPaths,
  exportDeps: ExportDeps,
  prefix: string,
): Promise<string> {
  const dir = paths.backupsDir;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const exported = await startExport(exportDeps);
  const stamp = exportFilename('x', exported.createdAt)
    .replace(/^appliance-config-x-/, '')
    .replace(/\.tar\.zst$/, '');
  let name = `${prefix}-${stamp}.tar.zst`;
  for (let i = 2; fs.existsSync(path.join(dir, name)); i++) name = `${prefix}-${stamp}-${i}.tar.zst`;
  const file = path.join(dir, name);
  const tmp = path.join(dir, `.${name}.tmp`);
  try {
    const out = fs.createWriteStream(tmp, { flags: 'wx', mode: 0o600 });
    await pipeline(exported.stream, out);
    await exported.done;
    const fd = fs.openSync(tmp, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
    await fsyncDir(dir);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  return paths.logical(file) ?? file;
}
