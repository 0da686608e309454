/**
 * What SnapRAID does not keep: owners, permission bits (with setuid/setgid/sticky), ACLs and
 * extended attributes of a data disk's files. SnapRAID rebuilds contents and modification times
 * only (`fix` creates every file `0600 root:root`), so after each sync the appliance saves them per
 * data disk with the standard tools, in their own restore format — `getfacl -R -P -n` (owners by
 * number, modes, ACLs; package `acl`) and `getfattr -R -P -h -d` of the `user.`, `trusted.` and
 * `security.` namespaces (package `attr`) — gzipped in the state directory, and a rebuild puts
 * them back with `setfacl --restore` and `setfattr --restore`. An administrator can do the same
 * by hand: `zcat d2.facl.gz | (cd /mnt/disk2 && setfacl --restore=-)`.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type CommandRunner, type HostPaths, requireTools, zlib } from '@appliance/common';

export interface MetadataFiles {
  acl: string;
  xattr: string;
}

/** Where the saved metadata of SnapRAID disk `name` (`d2`) lives: `<state>/metadata/d2.facl.gz`, `.xattr.gz`. */
export const metadataFiles = (paths: HostPaths, name: string): MetadataFiles => ({
  acl: path.join(paths.stateDir, 'metadata', `${name}.facl.gz`),
  xattr: path.join(paths.stateDir, 'metadata', `${name}.xattr.gz`),
});

/** getfacl/getfattr/setfacl/setfattr are installed: `501 not_configured` naming the package otherwise. */
export async function requireMetadataTools(runner: CommandRunner): Promise<void> {
  await requireTools(runner, ['getfacl', 'getfattr', 'setfacl', 'setfattr']);
}

const XATTR_NAMES = '^(user|trusted|security)\\.';

export interface SaveResult {
  /** Entries (files and directories) described. */
  entries: number;
  /** Lines the tools wrote to stderr (a file that vanished during the walk). */
  warnings: string[];
}

/**
 * Saves the metadata of the tree at the real directory `dir` into `files` (each written to a
 * temporary file, then renamed: a failed save keeps the previous one).
 */
export async function saveMetadata(
  runner: CommandRunner,
  o: { dir: string; files: MetadataFiles; signal?: AbortSignal },
): Promise<SaveResult> {
  await fs.mkdir(path.dirname(o.files.acl), { recursive: true, mode: 0o700 });
  const acl = await dump(runner, 'getfacl', ['-R', '-P', '-n', '.'], o.dir, o.files.acl, o.signal);
  const xattr = await dump(
    runner,
    'getfattr',
    ['-R', '-P', '-h', '-d', '-m', XATTR_NAMES, '.'],
    o.dir,
    o.files.xattr,
    o.signal,
  );
  return { entries: acl.entries, warnings: [...acl.warnings, ...xattr.warnings] };
}

/** SnapRAID's own files on a data disk: never in the dump (a rebuild does not bring them back; the next sync writes them). */
const OWN_FILES = new Set(['.snapraid.content', '.snapraid.content.tmp', '.snapraid.content.lock']);

/**
 * Runs a dump tool in `cwd`, streaming its output (records start at `# file:` lines; the runner
 * drops the blank lines between them, so they are put back) through gzip into `file`.
 */
async function dump(
  runner: CommandRunner,
  tool: string,
  args: string[],
  cwd: string,
  file: string,
  signal: AbortSignal | undefined,
): Promise<{ entries: number; warnings: string[] }> {
  const tmp = `${file}.${process.pid}.tmp`;
  const gzip = zlib().createGzip();
  const written = pipeline(gzip, createWriteStream(tmp, { mode: 0o600 }));
  let entries = 0;
  let skipping = false;
  const warnings: string[] = [];
  try {
    const r = await runner.run(tool, args, {
      cwd,
      timeoutMs: null,
      ...(signal ? { signal } : {}),
      onLine: (line, stream) => {
        if (stream === 'stderr') {
          if (warnings.length < 100) warnings.push(line);
          return;
        }
        if (line.startsWith('# file: ')) {
          skipping = OWN_FILES.has(line.slice(8).replace(/^\.\//, ''));
          if (skipping) return;
          if (entries > 0) gzip.write('\n');
          entries++;
        }
        if (!skipping) gzip.write(`${line}\n`);
      },
    });
    gzip.end();
    await written;
    if (r.cancelled) throw new Error(`${tool} was cancelled`);
    // exit 1 with output: some entries vanished during the walk (reported as warnings)
    if (r.exitCode !== 0 && !(r.exitCode === 1 && entries > 0))
      throw new Error(`${tool} exited ${r.exitCode}: ${warnings.at(-1) ?? ''}`);
    await fs.rename(tmp, file);
    return { entries, warnings };
  } catch (err) {
    gzip.destroy();
    await written.catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

export interface RestoreResult {
  /** Whether saved metadata existed for this disk. */
  saved: boolean;
  /** Paths in the saved metadata that are not on the disk (files that could not be rebuilt). */
  missing: number;
  /** Other problems the tools reported (at most 100 lines). */
  errors: string[];
}

/** Puts saved metadata back onto the tree at the real directory `dir`. */
export async function restoreMetadata(
  runner: CommandRunner,
  o: { dir: string; files: MetadataFiles },
): Promise<RestoreResult> {
  const exists = await fs.stat(o.files.acl).then(
    () => true,
    () => false,
  );
  if (!exists) return { saved: false, missing: 0, errors: [] };
  let missing = 0;
  const errors: string[] = [];
  for (const [tool, file, extra] of [
    ['setfacl', o.files.acl, []],
    ['setfattr', o.files.xattr, ['-h']],
  ] as const) {
    const plain = `${file}.${process.pid}.restore`;
    try {
      await pipeline(
        createReadStream(file),
        zlib().createGunzip(),
        createWriteStream(plain, { mode: 0o600 }),
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    try {
      // stderr as a whole: a name holding a newline spans several lines of it
      const r = await runner.run(tool, [...extra, `--restore=${plain}`], { cwd: o.dir, timeoutMs: null });
      for (const message of r.stderr.split(/\n(?=setf(?:acl|attr): )/)) {
        if (message.trim() === '') continue;
        if (/No such file or directory\s*$/.test(message)) {
          if (tool === 'setfacl') missing++;
        } else if (errors.length < 100) errors.push(message.trim());
      }
      if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`${tool} exited ${r.exitCode}`);
    } finally {
      await fs.rm(plain, { force: true });
    }
  }
  return { saved: true, missing, errors };
}
