/**
 * A loop-disk array for the package's system tests, set up by the package alone: guard shims
 * first on the runner's PATH, a sandbox root (`/mnt/…` under it), the in-memory ports, and the
 * array set up by `setupArray`. `close()` unmounts, unseals and detaches what it made.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  AppError,
  type CommandRunner,
  createCommandRunner,
  createHostPaths,
  createInventoryReader,
  type HostPaths,
} from '@appliance/common';
import { systemClock } from '@appliance/jobs/node';
import { type LoopDisk, createLoopDisk } from '@appliance/lab';
import { createSnapraid } from '@appliance/parity';
import { undoMounts } from '../node/array-setup.ts';
import { setupArray } from '../operations/setup-array.ts';
import type { DiskJobPorts } from '../ports.ts';
import { installGuardShims } from './guard-shims.ts';
import { DirectParity, MemoryLocks, MemoryLog, MemorySlotStore, RecordedFiles } from './memory.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

export interface LabArray {
  root: string;
  imageDir: string;
  paths: HostPaths;
  runner: CommandRunner;
  ports: DiskJobPorts & { slots: MemorySlotStore; parity: DirectParity; log: MemoryLog };
  disks: LoopDisk[];
  /** Another loop disk in the lab's image directory (destroyed by `close`). */
  addDisk(sizeMiB: number): Promise<LoopDisk>;
  close(): Promise<void>;
}

/** Parity 400 MiB (xfs), `dataDisks` data disks of 320 MiB (xfs), mergerfs pool when installed. */
export async function createLabArray(o: { dataDisks: number }): Promise<LabArray> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'array-planner-lab-'));
  const imageDir = path.join(root, 'images');
  const runner = createCommandRunner({ path: await installGuardShims(path.join(root, 'shims'), imageDir) });
  const paths = createHostPaths({ root });
  const disks: LoopDisk[] = [];
  const slots = new MemorySlotStore();
  const ports = {
    paths,
    runner,
    inventory: createInventoryReader({ paths, runner, lab: { enabled: true, imageDir } }),
    slots,
    snapraid: (configFile: string) => createSnapraid({ runner, configFile }),
    parity: new DirectParity(() => createSnapraid({ runner, configFile: paths.snapraidConf })),
    locks: new MemoryLocks(),
    generated: new RecordedFiles(),
    clock: systemClock,
    log: new MemoryLog(),
    labMode: true,
  };
  const addDisk = async (sizeMiB: number) => {
    const d = await createLoopDisk({ sizeBytes: sizeMiB * MiB, imageDir });
    disks.push(d);
    return d;
  };
  const close = async () => {
    const mountpoints = [...new Set(['/mnt/parity1', ...slots.rows.map((r) => r.mountpoint)])];
    await undoMounts(createCommandRunner(), [paths.userPool, ...mountpoints.map((m) => paths.real(m))]);
    for (const d of disks) await d.destroy();
    for (const m of mountpoints) await run('chattr', ['-i', paths.real(m)]).catch(() => undefined);
    await fs.rm(root, { recursive: true, force: true });
  };
  try {
    const parity = await addDisk(400);
    const data: LoopDisk[] = [];
    for (let i = 0; i < o.dataDisks; i++) data.push(await addDisk(320));
    const setup = { ...ports, recordArray: slots.recordArray };
    const request = {
      disks: [
        { device: parity.device, role: 'parity' as const },
        ...data.map((d) => ({ device: d.device, role: 'data' as const })),
      ],
      createPolicy: 'mfs' as const,
    };
    // the typed confirmation names every disk: the refusal says which phrase
    const expected = await setupArray(setup, request).then(
      () => {
        throw new Error('array setup ran without its confirmation');
      },
      (err: unknown) => {
        if (!(err instanceof AppError) || err.code !== 'confirmation_required') throw err;
        return err.details?.['expected'] as string;
      },
    );
    await setupArray(setup, { ...request, confirmation: expected });
  } catch (err) {
    await close();
    throw err;
  }
  return { root, imageDir, paths, runner, ports, disks, addDisk, close };
}
