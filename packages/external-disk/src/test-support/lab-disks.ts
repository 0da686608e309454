import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import { createLoopDisk, edgeBytes, type LoopDisk } from '@appliance/lab';

const run = promisify(execFile);

/** Write counters (fields 5 and 7 of /sys/class/block/<dev>/stat) of a device. */
export async function writeCounters(device: string): Promise<string> {
  const stat = await fs.readFile(`/sys/class/block/${device.replace('/dev/', '')}/stat`, 'utf8');
  const f = stat.trim().split(/\s+/);
  return `${f[4]} ${f[6]}`;
}

export async function sha256File(file: string): Promise<string> {
  return createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');
}

/** `blkid -p -o export` of a node as an object (what the tests compare with responses). */
export async function blkidExport(device: string): Promise<Record<string, string>> {
  const { stdout } = await run('blkid', ['-p', '-o', 'export', device]).catch((e: { stdout?: string }) => ({
    stdout: e.stdout ?? '',
  }));
  return Object.fromEntries(
    stdout
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

export async function waitForNode(file: string, timeoutMs = 5000): Promise<void> {
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

/**
 * A loop disk with an MS-DOS partition table and one filesystem per partition, e.g.
 * `[['vfat', 'DATA'], ['ext4', 'UNRAID']]` (07 §11's two-partition stick).
 */
export async function createPartitionedDisk(
  imageDir: string,
  parts: Array<[fs: 'vfat' | 'ext4', label: string]>,
  sizeBytes = 128 * 1024 * 1024,
): Promise<LoopDisk> {
  const disk = await createLoopDisk({ imageDir, sizeBytes });
  try {
    const args = ['-s', disk.device, 'mklabel', 'msdos'];
    const step = Math.floor(100 / parts.length);
    parts.forEach(([fsType], i) => {
      const start = i === 0 ? '1MiB' : `${i * step}%`;
      const end = i === parts.length - 1 ? '100%' : `${(i + 1) * step}%`;
      args.push('mkpart', 'primary', fsType === 'vfat' ? 'fat32' : 'ext4', start, end);
    });
    await run('parted', args);
    await run('partx', ['-u', disk.device]).catch(() => undefined);
    for (const [i, [fsType, label]] of parts.entries()) {
      const node = `${disk.device}p${i + 1}`;
      await waitForNode(node);
      if (fsType === 'vfat') await run('mkfs.vfat', ['-n', label, node]);
      else await run('mkfs.ext4', ['-q', '-F', '-L', label, node]);
    }
    return disk;
  } catch (err) {
    await disk.destroy();
    throw err;
  }
}

/** The tools the lab format tests need (every supported mkfs, partitioning, probing, mounting). */
export const FORMAT_LAB_TOOLS = [
  'losetup',
  'wipefs',
  'blkid',
  'blockdev',
  'mkfs.xfs',
  'mkfs.ext4',
  'mkfs.btrfs',
  'mkfs.exfat',
  'mkfs.vfat',
  'parted',
  'mount',
  'findmnt',
];

/** Everything a refused format must leave as it was: the first and last MiB, write counters, blkid. */
export async function diskFingerprint(d: LoopDisk) {
  return {
    edges: (await edgeBytes(d.device)).toString('base64'),
    counters: await writeCounters(d.device),
    blkid: await blkidExport(d.device),
  };
}
