import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LoopDiskOptions {
  /** Size in bytes (sparse). Default 512 MiB. */
  sizeBytes?: number;
  /** mkfs type to create on the whole disk: xfs, ext4, btrfs, vfat, exfat. */
  filesystem?: string;
  label?: string;
  /** Create one partition spanning the disk (GPT) and put the filesystem there. */
  partitioned?: boolean;
  /** Directory holding the image file (lab mode's imageDir). Default: a fresh temp dir. */
  imageDir?: string;
}

export interface LoopDisk {
  device: string;
  image: string;
  sizeBytes: number;
  /** Detach the loop device, unmounting anything on it first, and delete the image. */
  destroy(): Promise<void>;
}

const MKFS_ARGS: Record<string, (label?: string) => string[]> = {
  xfs: (l) => ['-f', ...(l ? ['-L', l] : [])],
  ext4: (l) => ['-F', '-q', ...(l ? ['-L', l] : [])],
  btrfs: (l) => ['-f', ...(l ? ['-L', l] : [])],
  vfat: (l) => [...(l ? ['-n', l] : [])],
  exfat: (l) => [...(l ? ['-L', l] : [])],
};

/** Creates a sparse image file and attaches it as a loop device (root required). */
export async function createLoopDisk(options: LoopDiskOptions = {}): Promise<LoopDisk> {
  const sizeBytes = options.sizeBytes ?? 512 * 1024 * 1024;
  const dir = options.imageDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-lab-disk-')));
  await fs.mkdir(dir, { recursive: true });
  const image = path.join(dir, `disk-${process.pid}-${Math.random().toString(36).slice(2, 10)}.img`);
  const handle = await fs.open(image, 'w');
  await handle.truncate(sizeBytes);
  await handle.close();
  const { stdout } = await run('losetup', ['-f', '--show', '-P', image]);
  const device = stdout.trim();
  const disk: LoopDisk = {
    device,
    image,
    sizeBytes,
    async destroy() {
      // Only while the device is still backed by this disk's image: a test may have detached it
      // already, and the kernel may have handed the number to another test's disk since.
      if (await backedBy(device, image)) {
        await unmountDevice(device);
        await run('losetup', ['-d', device]).catch(() => undefined);
      }
      await fs.rm(image, { force: true });
      if (!options.imageDir) await fs.rm(dir, { recursive: true, force: true });
    },
  };
  try {
    if (options.partitioned) {
      await run('parted', ['-s', device, 'mklabel', 'gpt', 'mkpart', 'primary', '1MiB', '100%']);
      await run('partx', ['-u', device]).catch(() => undefined);
      await waitFor(`${device}p1`);
    }
    if (options.filesystem) {
      const mk = MKFS_ARGS[options.filesystem];
      if (!mk) throw new Error(`unsupported lab filesystem ${options.filesystem}`);
      const target = options.partitioned ? `${device}p1` : device;
      await run(`mkfs.${options.filesystem}`, [...mk(options.label), target]);
    }
    return disk;
  } catch (err) {
    await disk.destroy();
    throw err;
  }
}

/** Whether `device` is attached to `image` now (the kernel's backing file of the loop device). */
export async function backedBy(device: string, image: string): Promise<boolean> {
  const name = device.replace(/^\/dev\//, '');
  const backing = await fs.readFile(`/sys/block/${name}/loop/backing_file`, 'utf8').catch(() => null);
  if (backing === null) return false;
  const b = backing.trim().replace(/ \(deleted\)$/, '');
  const real = await fs.realpath(image).catch(() => image);
  return b === image || b === real;
}

/** Unmounts every mount whose source is the device or one of its partitions. */
export async function unmountDevice(device: string): Promise<void> {
  const mounts = await fs.readFile('/proc/self/mounts', 'utf8');
  const targets = mounts
    .split('\n')
    .map((l) => l.split(' '))
    .filter(([src]) => src === device || src?.startsWith(`${device}p`))
    .map(([, target]) => (target ?? '').replace(/\\040/g, ' '))
    .reverse();
  for (const t of targets) await run('umount', ['-l', t]).catch(() => undefined);
}

/** Reads the first and last MiB of a device (for "nothing was written" assertions). */
export async function edgeBytes(device: string): Promise<Buffer> {
  const fh = await fs.open(device, 'r');
  try {
    const size =
      (await fh.stat()).size || Number((await run('blockdev', ['--getsize64', device])).stdout.trim());
    const mib = 1024 * 1024;
    const head = Buffer.alloc(mib);
    const tail = Buffer.alloc(mib);
    await fh.read(head, 0, mib, 0);
    await fh.read(tail, 0, mib, Math.max(0, size - mib));
    return Buffer.concat([head, tail]);
  } finally {
    await fh.close();
  }
}

async function waitFor(file: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (
      await fs.stat(file).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${file} did not appear`);
}

/** Whether this process can create loop devices (root and losetup present). */
export async function canUseLoopDevices(): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  return run('losetup', ['--version']).then(
    () => true,
    () => false,
  );
}

/**
 * The machine's whole disks under `/`, found independently of the inventory reader (`findmnt` for
 * the root source, then lsblk's slave walk down to `disk` nodes): what every boot-disk test
 * compares the reader's answer with.
 */
export async function realRootDisks(): Promise<string[]> {
  const source = (await run('findmnt', ['-n', '-o', 'SOURCE', '/'])).stdout.trim();
  const { stdout } = await run('lsblk', ['-s', '-n', '-r', '-p', '-o', 'NAME,TYPE', source]);
  return [
    ...new Set(
      stdout
        .split('\n')
        .map((l) => l.trim().split(' '))
        .filter(([, t]) => t === 'disk')
        .map(([n]) => n as string),
    ),
  ].sort();
}
