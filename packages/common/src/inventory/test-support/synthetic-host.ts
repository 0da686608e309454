import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Test helper: a synthetic host tree (sysfs, /dev, udev database, /proc) laid out like the real
 * one, so the inventory reader can be exercised on hardware this machine does not have.
 * Not exported from the package index.
 */
export interface SyntheticDisk {
  name: string;
  dev: string;
  sectors: number;
  model?: string;
  /** by-id link names pointing at the disk. */
  links?: string[];
  /** udev `E:` lines (KEY=value) of the disk; omit for no udev record. */
  udev?: Record<string, string>;
  slaves?: string[];
  holders?: string[];
  /** Write no `size` file's content as 0 etc. handled by sectors. */
  partitions?: SyntheticPartition[];
  /** Loop: backing file. */
  backingFile?: string;
  /** Bus folder under /sys/devices (default 'pci0000:00/block'). */
  bus?: string;
}

export interface SyntheticPartition {
  name: string;
  number: number;
  dev: string;
  sectors: number;
  links?: string[];
  udev?: Record<string, string>;
  holders?: string[];
}

export interface SyntheticHost {
  root: string;
  mountinfo: string[];
  swaps: string[];
}

const w = async (file: string, text: string) => {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
};

/** One mountinfo line. */
export const mountLine = (
  id: number,
  devno: string,
  target: string,
  fsType: string,
  source: string,
): string => `${id} 1 ${devno} / ${target} rw,relatime shared:1 - ${fsType} ${source} rw`;

export async function buildSyntheticHost(
  root: string,
  disks: SyntheticDisk[],
  mountinfo: string[],
  swaps: string[] = [],
): Promise<void> {
  const sys = path.join(root, 'sys');
  await fs.mkdir(path.join(sys, 'class', 'block'), { recursive: true });
  await fs.mkdir(path.join(sys, 'dev', 'block'), { recursive: true });
  await fs.mkdir(path.join(root, 'dev', 'disk', 'by-id'), { recursive: true });
  await fs.mkdir(path.join(root, 'run', 'udev', 'data'), { recursive: true });
  const link = async (target: string, at: string) => {
    await fs.mkdir(path.dirname(at), { recursive: true });
    await fs.symlink(path.relative(path.dirname(at), target), at);
  };
  const udev = async (dev: string, env: Record<string, string> | undefined) => {
    if (!env) return;
    const lines = ['S:disk/by-foo', ...Object.entries(env).map(([k, v]) => `E:${k}=${v}`)];
    await w(path.join(root, 'run', 'udev', 'data', `b${dev}`), `${lines.join('\n')}\n`);
  };
  for (const d of disks) {
    const dir = path.join(sys, 'devices', d.bus ?? 'pci0000:00/block', d.name);
    await w(path.join(dir, 'size'), `${d.sectors}\n`);
    await w(path.join(dir, 'dev'), `${d.dev}\n`);
    if (d.model !== undefined) await w(path.join(dir, 'device', 'model'), `${d.model}\n`);
    if (d.backingFile !== undefined) await w(path.join(dir, 'loop', 'backing_file'), `${d.backingFile}\n`);
    await fs.mkdir(path.join(dir, 'slaves'), { recursive: true });
    await fs.mkdir(path.join(dir, 'holders'), { recursive: true });
    for (const s of d.slaves ?? []) await w(path.join(dir, 'slaves', s), '');
    for (const h of d.holders ?? []) await w(path.join(dir, 'holders', h), '');
    await link(dir, path.join(sys, 'class', 'block', d.name));
    await link(dir, path.join(sys, 'dev', 'block', d.dev));
    await w(path.join(root, 'dev', d.name), '');
    for (const l of d.links ?? [])
      await fs.symlink(`../../${d.name}`, path.join(root, 'dev', 'disk', 'by-id', l));
    await udev(d.dev, d.udev);
    for (const p of d.partitions ?? []) {
      const pdir = path.join(dir, p.name);
      await w(path.join(pdir, 'size'), `${p.sectors}\n`);
      await w(path.join(pdir, 'dev'), `${p.dev}\n`);
      await w(path.join(pdir, 'partition'), `${p.number}\n`);
      await fs.mkdir(path.join(pdir, 'holders'), { recursive: true });
      for (const h of p.holders ?? []) await w(path.join(pdir, 'holders', h), '');
      await link(pdir, path.join(sys, 'class', 'block', p.name));
      await link(pdir, path.join(sys, 'dev', 'block', p.dev));
      await w(path.join(root, 'dev', p.name), '');
      for (const l of p.links ?? [])
        await fs.symlink(`../../${p.name}`, path.join(root, 'dev', 'disk', 'by-id', l));
      await udev(p.dev, p.udev);
    }
  }
  await w(path.join(root, 'proc', 'self', 'mountinfo'), `${mountinfo.join('\n')}\n`);
  await w(
    path.join(root, 'proc', 'swaps'),
    `Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n${swaps.map((s) => `${s}\n`).join('')}`,
  );
}
