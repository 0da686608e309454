import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type LoopDisk, createLoopDisk, realRootDisks, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandRunner, createCommandRunner } from '../command.ts';
import { createHostPaths } from '../host-paths.ts';
import { createInventoryReader } from './reader.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

describe('inventory reader on this machine (real sysfs, real loop devices)', () => {
  let imageDir: string;
  let mountDir: string;
  const disks: LoopDisk[] = [];
  const calls: string[] = [];
  let runner: CommandRunner;

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['losetup', 'mkfs.xfs', 'mkfs.vfat', 'parted', 'blkid', 'findmnt', 'lsblk', 'mount', 'umount'],
    });
    imageDir = await fs.mkdtemp(path.join(os.tmpdir(), 'inv-real-'));
    mountDir = await fs.mkdtemp(path.join(os.tmpdir(), 'inv-real-mnt-'));
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, filesystem: 'xfs', label: 'member', imageDir }));
    disks.push(
      await createLoopDisk({
        sizeBytes: 64 * MiB,
        filesystem: 'vfat',
        label: 'UNRAID',
        partitioned: true,
        imageDir,
      }),
    );
    disks.push(await createLoopDisk({ sizeBytes: 96 * MiB, imageDir }));
    const real = createCommandRunner();
    runner = {
      resolve: (command) => real.resolve(command),
      run(command, args, options) {
        calls.push(command);
        return real.run(command, args, options);
      },
    };
  }, 60_000);

  afterAll(async () => {
    await run('umount', [mountDir]).catch(() => undefined);
    for (const d of disks) await d.destroy();
    await fs.rm(imageDir, { recursive: true, force: true });
    await fs.rm(mountDir, { recursive: true, force: true });
  });

  it('detects the real root disk as the boot disk (outside lab mode: no loop device listed)', async () => {
    const expected = await realRootDisks();
    expect(expected.length).toBeGreaterThan(0);
    const inv = await createInventoryReader({
      paths: createHostPaths(),
      runner,
      lab: { enabled: false },
    }).read();
    expect(inv.bootResolved).toBe(true);
    expect(
      inv.disks
        .filter((d) => d.boot)
        .map((d) => d.device)
        .sort(),
    ).toEqual(expected);
    expect(inv.disks.some((d) => d.device.startsWith('/dev/loop'))).toBe(false);
  });

  it('lists lab loop disks with filesystem facts (blkid -p fallback), partitions, the stick rule and mounts', async () => {
    const [member, stick, blank] = disks as [LoopDisk, LoopDisk, LoopDisk];
    await run('mount', ['-o', 'ro', member.device, mountDir]);
    try {
      const paths = createHostPaths({ root: path.dirname(mountDir) });
      const inv = await createInventoryReader({ paths, runner, lab: { enabled: true, imageDir } }).read();
      const loops = inv.disks.filter((d) => d.lab);
      expect(loops.map((d) => d.device).sort()).toEqual([member.device, stick.device, blank.device].sort());
      const m = inv.disks.find((d) => d.device === member.device);
      const { stdout } = await run('blkid', ['-p', '-s', 'UUID', '-o', 'value', member.device]);
      expect(m).toMatchObject({
        sizeBytes: 320 * MiB,
        weakIdentity: true,
        wwn: null,
        serial: null,
        byIdName: null,
        model: null,
        filesystem: 'xfs',
        label: 'member',
        fsUuid: stdout.trim(),
        fsDevice: member.device,
        // reported through the host-paths object: logical inside the root prefix
        mountpoints: [`/${path.basename(mountDir)}`],
        inUse: true,
        boot: false,
        foreignStick: false,
        probeFailed: false,
      });
      const s = inv.disks.find((d) => d.device === stick.device);
      expect(s).toMatchObject({
        filesystem: 'vfat',
        label: 'UNRAID',
        fsDevice: `${stick.device}p1`,
        foreignStick: true,
        inUse: false,
      });
      expect(s?.partitions).toEqual([
        expect.objectContaining({
          device: `${stick.device}p1`,
          number: 1,
          filesystem: 'vfat',
          label: 'UNRAID',
        }),
      ]);
      expect(inv.disks.find((d) => d.device === blank.device)).toMatchObject({
        filesystem: null,
        fsUuid: null,
        partitions: [],
        probeFailed: false,
      });
      // the boot disk is still detected in lab mode
      expect(inv.bootResolved).toBe(true);
      expect(inv.disks.some((d) => d.boot)).toBe(true);
      // the only command the reader runs is blkid
      expect(new Set(calls)).toEqual(new Set(['blkid']));
    } finally {
      await run('umount', [mountDir]);
    }
  });
  it('one read hands every node to blkid once, whatever another node answers (issue 32)', async () => {
    // every blkid run and the device paths it was given; one chain, so a node that stopped a run
    // would push every node after it into a second run
    const runs: string[][] = [];
    const real = createCommandRunner();
    const counting: CommandRunner = {
      resolve: (command) => real.resolve(command),
      run(command, args, options) {
        if (command === 'blkid') runs.push(args.filter((a) => a.startsWith('/')));
        return real.run(command, args, options);
      },
    };
    const paths = { ...createHostPaths(), udevData: path.join(imageDir, 'no-udev-records') };
    const inv = await createInventoryReader({
      paths,
      runner: counting,
      lab: { enabled: true, imageDir },
      blkidConcurrency: 1,
    }).read();
    const handed = runs.flat();
    expect(handed.length).toBeGreaterThan(0);
    expect(handed.filter((d, i) => handed.indexOf(d) !== i)).toEqual([]);
    // each lab disk was probed (once) and has its facts, whatever the system disk answered (this
    // host's container refuses to open it: EPERM)
    for (const d of disks) expect(handed).toContain(d.device);
    expect(inv.disks.find((d) => d.device === disks[0]!.device)).toMatchObject({
      filesystem: 'xfs',
      label: 'member',
      probeFailed: false,
    });
  });
});
