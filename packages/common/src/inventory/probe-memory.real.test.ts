/**
 * Reused fallback probes (probe-memory.ts) on real loop devices, udev's database pointed at an
 * empty directory so that every node takes the `blkid -p` fallback: a listing read probes only the
 * nodes that changed, and every way of changing a disk shows in the very next listing.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type LoopDisk, createLoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandRunner, createCommandRunner } from '../command.ts';
import { createHostPaths } from '../host-paths.ts';
import type { InventoryReader } from './model.ts';
import { createInventoryReader } from './reader.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

describe('inventory reads that reuse unchanged probes (real loop devices, no udev records)', () => {
  let work: string;
  let imageDir: string;
  const disks: LoopDisk[] = [];
  /** Devices each blkid run probed. */
  let probed: string[] = [];
  let reader: InventoryReader;

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['losetup', 'mkfs.xfs', 'mkfs.ext4', 'wipefs', 'blkid'],
    });
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'probe-memory-'));
    imageDir = path.join(work, 'images');
    await fs.mkdir(imageDir);
    await fs.mkdir(path.join(work, 'no-udev'));
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, filesystem: 'xfs', label: 'first', imageDir }));
    disks.push(await createLoopDisk({ sizeBytes: 64 * MiB, filesystem: 'ext4', label: 'second', imageDir }));
    disks.push(await createLoopDisk({ sizeBytes: 64 * MiB, imageDir }));
    const real = createCommandRunner();
    const runner: CommandRunner = {
      resolve: (command) => real.resolve(command),
      run(command, args, options) {
        if (command === 'blkid') probed.push(...args.filter((a) => a.startsWith('/')));
        return real.run(command, args, options);
      },
    };
    const paths = { ...createHostPaths(), udevData: path.join(work, 'no-udev') };
    reader = createInventoryReader({ paths, runner, lab: { enabled: true, imageDir } });
  }, 60_000);

  afterAll(async () => {
    for (const d of disks) await d.destroy();
    await fs.rm(work, { recursive: true, force: true });
  });

  const ours = (names: string[]) =>
    [...new Set(names.filter((d) => disks.some((x) => x.device === d)))].sort();
  async function list(reuseProbes: boolean) {
    probed = [];
    const inv = await reader.read({ reuseProbes });
    const facts = Object.fromEntries(
      inv.disks.map((d) => [d.device, { filesystem: d.filesystem, label: d.label, fsUuid: d.fsUuid }]),
    );
    return { facts, probed: ours(probed) };
  }
  const devices = () => disks.map((d) => d.device).sort();

  it('probes every node on a plain read, none on a listing while nothing changed', async () => {
    const fresh = await list(false);
    expect(fresh.probed).toEqual(devices());
    expect(fresh.facts[disks[0]!.device]).toMatchObject({ filesystem: 'xfs', label: 'first' });
    const again = await list(true);
    expect(again.probed).toEqual([]);
    expect(again.facts).toEqual(fresh.facts);
    // a plain read still probes everything (03 §2.2)
    expect((await list(false)).probed).toEqual(devices());
  });

  it('a new filesystem (mkfs through the node) shows in the next listing', async () => {
    const [, second] = disks as [LoopDisk, LoopDisk, LoopDisk];
    await list(true);
    await run('mkfs.ext4', ['-q', '-F', '-L', 'renamed', second.device]);
    const next = await list(true);
    expect(next.probed).toEqual([second.device]);
    expect(next.facts[second.device]).toMatchObject({ filesystem: 'ext4', label: 'renamed' });
  });

  it('a wiped disk shows in the next listing', async () => {
    const [first] = disks as [LoopDisk, LoopDisk, LoopDisk];
    await list(true);
    await run('wipefs', ['-a', first.device]);
    const next = await list(true);
    expect(next.probed).toEqual([first.device]);
    expect(next.facts[first.device]).toMatchObject({ filesystem: null, label: null, fsUuid: null });
  });

  it('a write through another node of the same device (not the one in /dev) shows once it reaches the disk', async () => {
    const [, , blank] = disks as [LoopDisk, LoopDisk, LoopDisk];
    await list(true);
    // format a copy of the device's content elsewhere, then write it through a second node
    const image = path.join(work, 'ext4.img');
    await run('truncate', ['-s', '64M', image]);
    await run('mkfs.ext4', ['-q', '-F', '-L', 'elsewhere', image]);
    const { stdout } = await run('stat', ['-L', '-c', '%t %T', blank.device]);
    const [major, minor] = stdout
      .trim()
      .split(' ')
      .map((h) => Number.parseInt(h, 16));
    const node = path.join(work, 'second-node');
    await run('mknod', [node, 'b', String(major), String(minor)]);
    await run('dd', [`if=${image}`, `of=${node}`, 'bs=1M', 'count=2', 'conv=fsync,notrunc', 'status=none']);
    const next = await list(true);
    expect(next.probed).toEqual([blank.device]);
    expect(next.facts[blank.device]).toMatchObject({ filesystem: 'ext4', label: 'elsewhere' });
  });

  it('a disk that grew (its size is part of the fingerprint) is probed again', async () => {
    const [, second] = disks as [LoopDisk, LoopDisk, LoopDisk];
    await list(true);
    await run('truncate', ['-s', '96M', second.image]);
    await run('losetup', ['-c', second.device]);
    const next = await list(true);
    expect(next.probed).toEqual([second.device]);
  });
});
