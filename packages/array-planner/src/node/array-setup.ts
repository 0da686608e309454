import fs from 'node:fs/promises';
import path from 'node:path';
import {
  AppError,
  type CommandRunner,
  type HostPaths,
  expectSuccess,
  isAppError,
  requireTools,
  writeFileAtomic,
} from '@appliance/common';
import type { ArraySetupPlan, PlannedMember } from '../core/array-setup.ts';
import { mergerfsOptions, minFreeSpaceMiB, poolBranches } from '../core/mergerfs.ts';
import { persistsMountUnits, renderMountUnits } from '../core/mount-units.ts';
import { type SnapraidMember, renderSnapraidConf } from '../core/snapraid-conf.ts';
import type { ArrayFilesystem } from '../core/types.ts';
import { checkMounted, formatDisk, mountByUuid, readFsUuid } from './disk-tools.ts';
import { type MountpointGuard, guardMountpoint } from './mountpoint-guard.ts';
import { type InstalledMountUnits, MountUnitStepError, installMountUnits } from './mount-units.ts';

export { minFreeSpaceMiB } from '../core/mergerfs.ts';

export interface ArraySetupDeps {
  paths: HostPaths;
  runner: CommandRunner;
  /** Progress of each step (the server publishes them as `operation: "array.create"` events). */
  onProgress?: (event: { step: string; device?: string; mountpoint?: string }) => void;
  /** Timeout of one mkfs run. Default 10 minutes. */
  mkfsTimeoutMs?: number;
  /**
   * Lab mode (configuration). Boot-persistent mount units are written only when this is false
   * and `paths.root` is empty (08 §9.3).
   */
  labMode: boolean;
  /** Where the mount units go. Default `/etc/systemd/system`. */
  unitDir?: string;
  /** The "systemd is running" marker. Default `/run/systemd/system`. */
  systemdRunDir?: string;
  /** `JobRunningTimeoutSec=` of each disk's device unit. Default 60. */
  deviceTimeoutSec?: number;
  /** Notable events (e.g. units written but not enabled because systemd is not running). */
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface FormattedMember extends PlannedMember {
  fsUuid: string;
}

export interface ArraySetupResult {
  members: FormattedMember[];
  poolMounted: boolean;
  snapraidConf: string;
  /** Real mount targets this run mounted, in mount order (for undo). */
  mounted: string[];
  /** The boot-persistent units written (`null` in lab mode or with a root prefix); undo with `removeMountUnits`. */
  mountUnits: InstalledMountUnits | null;
}

/**
 * 08 §9.3 step 2: every tool the setup needs is installed, answered by the runner's own lookup (the
 * one `run` uses), so a tool the run would not find is `501 not_configured` naming the Debian
 * package before any disk is written.
 */
export async function checkSetupTools(
  runner: CommandRunner,
  filesystems: readonly ArrayFilesystem[],
): Promise<void> {
  await requireTools(runner, [
    'wipefs',
    ...new Set(filesystems.map((f) => `mkfs.${f}`)),
    'blkid',
    'mount',
    'findmnt',
  ]);
}

/** Whether mergerfs is installed (the pool is optional: without it `poolMounted: false`). */
export async function mergerfsInstalled(runner: CommandRunner): Promise<boolean> {
  return (await runner.resolve('mergerfs')) !== null;
}

/**
 * Executes a checked array setup plan (08 §9.3): per disk (parity, data, cache) `wipefs -a`,
 * `mkfs.<fs>` with its label, the UUID from `blkid -p`, mount by UUID, checked with `findmnt`;
 * then `snapraid.conf` written atomically and the mergerfs pool when mergerfs is installed; then,
 * outside lab mode and without a root prefix only, the boot-persistent mount units
 * (`installMountUnits`). A failure removes the units it wrote, unmounts what this run mounted and throws `500 array_setup_failed` with
 * `details.step`; formatted disks stay formatted (the same request completes the setup).
 */
export async function executeArraySetup(
  plan: ArraySetupPlan,
  deps: ArraySetupDeps,
): Promise<ArraySetupResult> {
  const { paths, runner } = deps;
  const mounted: string[] = [];
  const members: FormattedMember[] = [];
  let step = 'start';
  const progress = (s: string, extra: { device?: string; mountpoint?: string } = {}) => {
    step = s;
    deps.onProgress?.({ step: s, ...extra });
  };
  try {
    for (const m of plan.members) {
      await formatDisk(
        runner,
        {
          device: m.device,
          filesystem: m.filesystem,
          label: m.label,
          ...(deps.mkfsTimeoutMs !== undefined ? { mkfsTimeoutMs: deps.mkfsTimeoutMs } : {}),
        },
        (s) => progress(s, { device: m.device }),
      );
      progress(`blkid ${m.device}`, { device: m.device });
      const uuid = await readFsUuid(runner, m.device);
      progress(`mount ${m.device}`, { device: m.device, mountpoint: m.mountpoint });
      await guardSlotMountpoint(deps, m.mountpoint);
      const target = await mountByUuid(runner, paths, { uuid, logical: m.mountpoint, device: m.device });
      mounted.push(target);
      members.push({ ...m, fsUuid: uuid });
    }

    progress('snapraid.conf');
    const conf = await writeSnapraidConf(paths, members);

    let poolMounted = false;
    if (await mergerfsInstalled(runner)) {
      progress('mergerfs /mnt/user', { mountpoint: '/mnt/user' });
      const branches = poolBranches(members).map((m) => paths.real(m.mountpoint));
      await fs.mkdir(paths.userPool, { recursive: true });
      const options = mergerfsOptions({
        createPolicy: plan.createPolicy,
        minFreeSpaceMiB: minFreeSpaceMiB(members),
      });
      expectSuccess(
        await runner.run('mergerfs', ['-o', options, branches.join(':'), paths.userPool], {
          timeoutMs: 30_000,
        }),
      );
      mounted.push(paths.userPool);
      await checkMounted(runner, paths.userPool, null);
      poolMounted = true;
    }

    let mountUnits: InstalledMountUnits | null = null;
    if (persistsMountUnits({ labMode: deps.labMode, root: paths.root })) {
      progress('mount units');
      const rendered = renderMountUnits(members, {
        pool: poolMounted
          ? { createPolicy: plan.createPolicy, minFreeSpaceMiB: minFreeSpaceMiB(members) }
          : null,
        ...(deps.deviceTimeoutSec !== undefined ? { deviceTimeoutSec: deps.deviceTimeoutSec } : {}),
      });
      mountUnits = await installMountUnits(rendered, {
        runner,
        ...(deps.unitDir !== undefined ? { unitDir: deps.unitDir } : {}),
        ...(deps.systemdRunDir !== undefined ? { systemdRunDir: deps.systemdRunDir } : {}),
        ...(deps.log ? { log: deps.log } : {}),
        onStep: (s) => progress(s),
      });
    }
    return { members, poolMounted, snapraidConf: conf, mounted, mountUnits };
  } catch (err) {
    if (err instanceof MountUnitStepError) step = err.step; // it undid its own files
    deps.log?.('array setup failed', { step, error: err instanceof Error ? err.message : String(err) });
    await undoMounts(runner, mounted);
    if (isAppError(err) && err.status !== 500) throw err;
    throw new AppError(
      500,
      'array_setup_failed',
      `Array setup stopped at "${step}": nothing was recorded and what this run mounted was unmounted; fix the cause (see the service log) and send the same request again to complete the setup.`,
      { step },
    );
  }
}

/**
 * The slot's empty mountpoint directory made immutable before the disk is mounted over it (issue
 * 32): while the disk is not mounted there, nothing can be written into it. Never fails the setup:
 * a filesystem without the flag, or a directory that already holds files (which the mount will
 * hide; the disks watcher reports them), is logged.
 */
export async function guardSlotMountpoint(
  deps: Pick<ArraySetupDeps, 'runner' | 'paths' | 'log'>,
  mountpoint: string,
): Promise<MountpointGuard> {
  const g = await guardMountpoint(deps.runner, deps.paths, mountpoint, {
    scratch: path.join(deps.paths.stateDir, 'mountpoint-guard'),
  });
  logGuard(deps.log, g);
  return g;
}

/** The log line of a mountpoint that could not be sealed (none when it was). */
export function logGuard(log: ArraySetupDeps['log'], g: MountpointGuard): void {
  if (g.seal === 'sealed') return;
  if (g.seal === 'not_empty')
    log?.(`${g.mountpoint} holds ${g.count} entries on the system disk; it was left writable`, {
      mountpoint: g.mountpoint,
      entries: g.entries,
      mounted: g.mounted,
    });
  else
    log?.(
      `${g.mountpoint} cannot be made immutable (${g.error}); only the pool's branch mode keeps writes off it while its disk is not mounted`,
      { mountpoint: g.mountpoint, seal: g.seal },
    );
}

/** Unmounts targets in reverse order (lazy unmount never used: a busy target stays and is reported). */
export async function undoMounts(runner: CommandRunner, targets: readonly string[]): Promise<void> {
  for (const t of [...targets].reverse()) {
    await runner.run('umount', [t], { timeoutMs: 60_000 }).catch(() => undefined);
  }
}

/**
 * Writes `snapraid.conf` atomically for these members (08 §9.3): array setup, a disk job's switch
 * and its recovery all render it from the slots, so it never says anything the rows do not.
 * `file` defaults to the array's own configuration. Returns the text.
 */
export async function writeSnapraidConf(
  paths: HostPaths,
  members: readonly SnapraidMember[],
  file: string = paths.snapraidConf,
): Promise<string> {
  const conf = arraySnapraidConf(paths, members);
  await fs.mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  await fs.mkdir(parentDir(file), { recursive: true });
  await writeFileAtomic(file, conf, { mode: 0o644 });
  return conf;
}

/** The text of the array's SnapRAID configuration for these members, on this machine's paths. */
export const arraySnapraidConf = (paths: HostPaths, members: readonly SnapraidMember[]): string =>
  renderSnapraidConf(members, {
    contentFile: `${paths.stateDir}/snapraid.content`,
    hostPath: (p) => paths.real(p),
  });

const parentDir = (file: string) => file.slice(0, file.lastIndexOf('/')) || '/';
