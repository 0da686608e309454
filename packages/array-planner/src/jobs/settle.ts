/**
 * Putting a slot wholly on one side after a disk job (its end, its failure, a cancel, a restart):
 * mounts, the pool branch, snapraid.conf and the boot-persistent mount units as the rows say.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { JobHandle } from '@appliance/jobs';
import {
  type DiskJobParams,
  jobSlot,
  type SlotSide,
  settlement,
  stagingMountpoint,
} from '../core/disk-job.ts';
import { persistsMountUnits, renderMountUnits } from '../core/mount-units.ts';
import type { ArraySlot } from '../core/types.ts';
import { arraySnapraidConf, minFreeSpaceMiB, writeSnapraidConf } from '../node/array-setup.ts';
import { replaceMountUnits } from '../node/mount-units.ts';
import { setBranchMode, swapBranch } from '../node/pool-control.ts';
import { isMountedAt, isPoolMounted } from '../node/pool-state.ts';
import { settleSlot } from '../node/settle.ts';
import type { DiskJobPorts } from '../ports.ts';

/** The directory of a job's own files (its snapraid.conf). */
export const jobDir = (ports: Pick<DiskJobPorts, 'paths'>) => path.join(ports.paths.stateDir, 'disk-jobs');

/**
 * Failure injection for the crash tests, in lab mode only: when `<state>/lab-pause` names this
 * point, the job writes `<state>/lab-paused` and waits there until the service is killed, the job
 * is cancelled or shut down, or the pause file no longer names the point.
 */
export async function labPause(ports: DiskJobPorts, job: JobHandle, point: string): Promise<void> {
  if (!ports.labMode) return;
  const file = path.join(ports.paths.stateDir, 'lab-pause');
  const wanted = async () => (await fs.readFile(file, 'utf8').catch(() => '')).trim() === point;
  if (!(await wanted())) return;
  await fs.writeFile(path.join(ports.paths.stateDir, 'lab-paused'), point);
  while (!job.signal.aborted && (await wanted())) await new Promise((r) => setTimeout(r, 100));
}

/**
 * What the mountpoint directory of a slot holds while nothing is mounted there: files the pool
 * wrote onto the system disk while the slot's disk was missing (the first few names).
 */
export async function strayEntries(
  ports: Pick<DiskJobPorts, 'paths'>,
  mountpoint: string,
): Promise<string[]> {
  if (await isMountedAt(ports.paths, mountpoint)) return [];
  const names = await fs.readdir(ports.paths.real(mountpoint)).catch(() => [] as string[]);
  return names.sort().slice(0, 20);
}

/** The boot-persistent mount units follow the rows (outside lab mode and without a root prefix). */
export async function updateMountUnits(
  ports: DiskJobPorts,
  before: ArraySlot[],
  after: ArraySlot[],
): Promise<void> {
  if (!persistsMountUnits({ labMode: ports.labMode, root: ports.paths.root })) return;
  const settings = ports.slots.readSettings();
  const pool = (await isPoolMounted(ports.paths))
    ? {
        createPolicy: settings?.createPolicy ?? 'mfs',
        minFreeSpaceMiB: minFreeSpaceMiB(
          after.map((r) => ({ role: r.role, entry: { sizeBytes: r.sizeBytes ?? 0 } })),
        ),
      }
    : null;
  const units = await replaceMountUnits(
    renderMountUnits(before, { pool }),
    renderMountUnits(after, { pool }),
    { runner: ports.runner, log: (message, fields) => ports.log.warn(message, fields) },
  );
  // the drift watcher knows what the service wrote
  for (const file of units.files) ports.generated.recordQuietly(file);
  for (const file of units.removed) await ports.generated.forget(file);
}

/** snapraid.conf rendered from the rows, written and recorded for the drift watcher. */
export async function writeArrayConf(ports: DiskJobPorts, rows: ArraySlot[]): Promise<void> {
  const text = await writeSnapraidConf(ports.paths, rows);
  ports.generated.recordQuietly(ports.paths.snapraidConf, text);
}

/**
 * Puts the slot wholly on one side (the core's `settlement`): mounts, the pool branch writable
 * again, snapraid.conf and the mount units as the rows say, the job's own files removed.
 */
export async function settle(ports: DiskJobPorts, p: DiskJobParams, side: SlotSide): Promise<void> {
  const { runner, paths } = ports;
  // a switch stopped half-way: the slot's own mountpoint is the branch again
  if (p.kind === 'upgrade_data')
    await swapBranch(runner, paths, stagingMountpoint(p.mountpoint), p.mountpoint);
  const inventory = await ports.inventory.read();
  await settleSlot(runner, paths, inventory, settlement(p, side));
  if (p.kind === 'upgrade_data')
    await fs.rmdir(paths.real(stagingMountpoint(p.mountpoint))).catch(() => undefined);
  const rows = ports.slots.listSlots();
  const current = await fs.readFile(paths.snapraidConf, 'utf8').catch(() => null);
  if (current !== arraySnapraidConf(paths, rows)) await writeArrayConf(ports, rows);
  await fs.rm(jobDir(ports), { recursive: true, force: true });
  // writable again, unless its disk is missing (then no new file may land in the empty mountpoint)
  if (p.role === 'data')
    await setBranchMode(runner, paths, p.mountpoint, (await isMountedAt(paths, p.mountpoint)) ? 'RW' : 'NC');
  const slot = jobSlot(rows, p);
  if (slot) {
    const other =
      side === 'new'
        ? rows.map((r) =>
            r.id === slot.id ? { ...r, fsUuid: p.previousFsUuid, mountpoint: p.mountpoint } : r,
          )
        : rows.map((r) =>
            r.id === slot.id ? { ...r, fsUuid: p.newFsUuid, mountpoint: p.targetMountpoint } : r,
          );
    await updateMountUnits(ports, other, rows);
  }
}
