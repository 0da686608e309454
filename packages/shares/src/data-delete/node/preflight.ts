/**
 * Pre-flight of share data delete (05 §4 step 13): what is mounted at each branch disk's mountpoint
 * (findmnt, which reads /proc/self/mountinfo; the filesystem UUID it reports, or blkid's) and what the
 * branch path is (lstat, never followed). The verdict is the core's (checkBranchDisks).
 */
import fs from 'node:fs/promises';
import type { CommandRunner, HostPaths } from '@appliance/common';
import type { BranchDiskObservation } from '../core/checks.ts';
import { errorName } from '../core/entry-rules.ts';
import type { BranchPlan, DiskDirectory, PlannedBranch } from '../core/model.ts';
import type { VerifiedBranch } from './tree-deleter.ts';

export interface PreflightOptions {
  paths: HostPaths;
  runner: CommandRunner;
  /**
   * The host is a sandbox of plain directories (a root prefix without lab mode, 05 §4): an existing
   * mountpoint directory counts as mounted with the right filesystem.
   */
  plainDirectories: boolean;
}

export interface PreflightResult {
  /** One per planned branch, in plan order. */
  observations: BranchDiskObservation[];
  /** The branches whose directory exists, with the dev and inode the deleter re-checks. */
  present: VerifiedBranch[];
  /** Pool directories named like the share that are not branches and exist. */
  untouched: DiskDirectory[];
}

interface MountFacts {
  mounted: boolean;
  uuid: string | null;
}

export async function preflightBranches(
  plan: BranchPlan,
  options: PreflightOptions,
): Promise<PreflightResult> {
  const observations: BranchDiskObservation[] = [];
  const present: VerifiedBranch[] = [];
  for (const branch of plan.branches) {
    const mount = await mountFacts(branch.disk, options);
    const seen: BranchFacts = mount.mounted ? await branchFacts(branch, options.paths) : { kind: 'absent' };
    observations.push({
      disk: branch.disk,
      path: branch.path,
      mounted: mount.mounted,
      mountedUuid: mount.uuid,
      expectedUuid: branch.fsUuid,
      branch: seen.kind === 'unreadable' ? 'absent' : seen.kind,
      ...(seen.kind === 'unreadable' ? { error: seen.error } : {}),
    });
    if (seen.kind === 'directory') {
      present.push({
        disk: branch.disk,
        path: branch.path,
        realPath: options.paths.real(branch.path),
        dev: seen.dev,
        ino: seen.ino,
      });
    }
  }
  const untouched: DiskDirectory[] = [];
  for (const dir of plan.nonBranches) {
    const st = await fs.lstat(options.paths.real(dir.path)).catch(() => null);
    if (st) untouched.push(dir);
  }
  return { observations, present, untouched };
}

/** Whether a filesystem is mounted exactly at the disk's mountpoint, and its UUID. */
async function mountFacts(disk: string, options: PreflightOptions): Promise<MountFacts> {
  const real = options.paths.real(disk);
  if (options.plainDirectories) {
    const st = await fs.lstat(real).catch(() => null);
    return { mounted: st?.isDirectory() === true, uuid: null };
  }
  const found = await options.runner.run(
    'findmnt',
    ['-J', '-o', 'TARGET,SOURCE,UUID', '--mountpoint', real],
    {
      timeoutMs: 10_000,
    },
  );
  if (found.exitCode !== 0) return { mounted: false, uuid: null };
  const parsed = JSON.parse(found.stdout) as {
    filesystems?: Array<{ target?: string; source?: string; uuid?: string | null }>;
  };
  const top = parsed.filesystems?.filter((f) => f.target === real).at(-1);
  if (!top) return { mounted: false, uuid: null };
  if (top.uuid) return { mounted: true, uuid: top.uuid };
  // findmnt reads UUIDs from the udev database; without one, ask the superblock
  if (!top.source?.startsWith('/dev/')) return { mounted: true, uuid: '' };
  const probed = await options.runner.run('blkid', ['-p', '-s', 'UUID', '-o', 'value', top.source], {
    timeoutMs: 10_000,
  });
  return { mounted: true, uuid: probed.exitCode === 0 ? probed.stdout.trim() : '' };
}

type BranchFacts =
  | { kind: 'absent' }
  | { kind: 'directory'; dev: number; ino: number }
  | { kind: 'unreadable'; error: string }
  | { kind: 'symlink' | 'not_directory' | 'other_filesystem' };

/** What the branch path is, without following it: missing, a directory on the disk, or something else. */
async function branchFacts(branch: PlannedBranch, paths: HostPaths): Promise<BranchFacts> {
  try {
    const st = await fs.lstat(paths.real(branch.path)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (st === null) return { kind: 'absent' };
    if (st.isSymbolicLink()) return { kind: 'symlink' };
    if (!st.isDirectory()) return { kind: 'not_directory' };
    const disk = await fs.stat(paths.real(branch.disk));
    if (disk.dev !== st.dev) return { kind: 'other_filesystem' };
    return { kind: 'directory', dev: st.dev, ino: st.ino };
  } catch (err) {
    return { kind: 'unreadable', error: errorName(err) };
  }
}
