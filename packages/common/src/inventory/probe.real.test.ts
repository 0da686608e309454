import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type LoopDisk, createLoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandRunner, createCommandRunner } from '../command.ts';
import { openCheck, probeWithBlkid } from './probe.ts';
import { NO_FILESYSTEM, parseBlkidExport } from './udev.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

/** The answer of one `blkid -p -o export <device>`, read the way a single probe reads it. */
async function singleProbe(device: string) {
  try {
    const { stdout } = await run('blkid', ['-p', '-o', 'export', device]);
    return parseBlkidExport(stdout);
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return e.code === 2 && !/error/i.test(e.stderr ?? '') ? NO_FILESYSTEM : 'failed';
  }
}

describe('batched blkid probes on real loop devices', () => {
  let imageDir: string;
  const disks: LoopDisk[] = [];
  const batches: string[][] = [];
  let runner: CommandRunner;

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['losetup', 'mkfs.xfs', 'mkfs.vfat', 'parted', 'blkid'],
    });
    imageDir = await fs.mkdtemp(path.join(os.tmpdir(), 'probe-real-'));
    // formatted, blank, partitioned with a labelled vfat, blank, formatted
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, filesystem: 'xfs', label: 'one', imageDir }));
    disks.push(await createLoopDisk({ sizeBytes: 32 * MiB, imageDir }));
    disks.push(
      await createLoopDisk({
        sizeBytes: 64 * MiB,
        filesystem: 'vfat',
        label: 'UNRAID',
        partitioned: true,
        imageDir,
      }),
    );
    disks.push(await createLoopDisk({ sizeBytes: 32 * MiB, imageDir }));
    disks.push(await createLoopDisk({ sizeBytes: 64 * MiB, filesystem: 'vfat', label: 'two', imageDir }));
    // ext4 plus a btrfs superblock at 64 KiB: blkid calls it ambivalent (exit 8) and stops a batch
    const ambivalent = await createLoopDisk({ sizeBytes: 128 * MiB, filesystem: 'ext4', imageDir });
    const donor = await createLoopDisk({ sizeBytes: 128 * MiB, filesystem: 'btrfs', imageDir });
    disks.push(ambivalent, donor);
    await run('dd', [
      `if=${donor.device}`,
      `of=${ambivalent.device}`,
      'bs=4096',
      'skip=16',
      'seek=16',
      'count=1',
      'conv=notrunc,fsync',
      'status=none',
    ]);
    const real = createCommandRunner();
    runner = {
      resolve: (command) => real.resolve(command),
      run(command, args, options) {
        batches.push(args.slice(4));
        return real.run(command, args, options);
      },
    };
  }, 60_000);

  afterAll(async () => {
    for (const d of disks) await d.destroy();
    await fs.rm(imageDir, { recursive: true, force: true });
  });

  it('gives every device the answer a probe of it alone gives, in fewer blkid runs', async () => {
    const [one, blank, stick, blank2, two, ambivalent] = disks as LoopDisk[] as [
      LoopDisk,
      LoopDisk,
      LoopDisk,
      LoopDisk,
      LoopDisk,
      LoopDisk,
    ];
    const devices = [
      one.device,
      blank.device,
      stick.device,
      `${stick.device}p1`,
      '/dev/appliance-vanished-node',
      blank2.device,
      ambivalent.device,
      two.device,
    ];
    const batched = await probeWithBlkid(devices, { runner, concurrency: 1, timeoutMs: 10_000 });
    const expected = new Map<string, unknown>();
    for (const d of devices) expected.set(d, await singleProbe(d));
    expect(batched).toEqual(expected);
    expect(batched.get(one.device)).toMatchObject({ filesystem: 'xfs', label: 'one' });
    expect(batched.get(`${stick.device}p1`)).toMatchObject({ filesystem: 'vfat', label: 'UNRAID' });
    expect(batched.get(blank.device)).toEqual(NO_FILESYSTEM);
    expect(batched.get(blank2.device)).toEqual(NO_FILESYSTEM);
    expect(batched.get(ambivalent.device)).toBe('failed');
    expect(batched.get(two.device)).toMatchObject({ filesystem: 'vfat', label: 'two' });
    // blank disks do not stop a batch, the vanished node is never handed to blkid (its open says
    // ENOENT), and the ambivalent disk stops it once: the one device after it goes to a new run
    const handed = devices.filter((d) => d !== '/dev/appliance-vanished-node');
    expect(batches).toEqual([handed, [two.device]]);
  });

  it('a device whose open is refused is never batched: every other device goes to blkid once (issue 32)', async () => {
    const [one, blank, , , two] = disks as LoopDisk[] as [LoopDisk, LoopDisk, LoopDisk, LoopDisk, LoopDisk];
    // a block device node of a major no driver claims: open() answers ENXIO, and blkid stops there
    // exactly as at a system disk a container may not open (EPERM)
    const claimed = new Set(
      (await fs.readFile('/proc/devices', 'utf8'))
        .split('Block devices:')[1]!
        .split('\n')
        .map((l) => Number.parseInt(l, 10))
        .filter((n) => Number.isInteger(n)),
    );
    const major = [240, 241, 242, 243, 244, 245, 246, 247, 248].find((m) => !claimed.has(m))!;
    const refused = path.join(imageDir, 'refused-node');
    await run('mknod', [refused, 'b', String(major), '0']);
    expect(await singleProbe(refused)).toBe('failed');
    const devices = [one.device, refused, blank.device, two.device];
    batches.length = 0;
    const batched = await probeWithBlkid(devices, { runner, concurrency: 1, timeoutMs: 10_000 });
    expect(batched.get(refused)).toBe('failed');
    for (const d of [one.device, blank.device, two.device])
      expect(batched.get(d)).toEqual(await singleProbe(d));
    expect(batched.get(two.device)).toMatchObject({ filesystem: 'vfat', label: 'two' });
    // one run, each real disk in it once; the refused node never in a run
    expect(batches).toEqual([[one.device, blank.device, two.device]]);
    const probes = new Map<string, number>();
    for (const d of batches.flat()) probes.set(d, (probes.get(d) ?? 0) + 1);
    expect([...probes.values()].every((n) => n === 1)).toBe(true);
  });

  it('an injected refusal (EPERM, as the system disk in a container) fails that device alone', async () => {
    const [one, blank, stick, , two] = disks as LoopDisk[] as [
      LoopDisk,
      LoopDisk,
      LoopDisk,
      LoopDisk,
      LoopDisk,
    ];
    const devices = [blank.device, one.device, stick.device, two.device];
    batches.length = 0;
    const batched = await probeWithBlkid(devices, {
      runner,
      concurrency: 1,
      timeoutMs: 10_000,
      openCheck: async (d) => (d === one.device ? 'EPERM' : null),
    });
    expect(batched.get(one.device)).toBe('failed');
    expect(batched.get(two.device)).toMatchObject({ filesystem: 'vfat', label: 'two' });
    expect(batches).toEqual([[blank.device, stick.device, two.device]]);
  });
  it('openCheck: a disk opens, a vanished node is ENOENT, concurrent checks of one disk all answer', async () => {
    const [one] = disks as LoopDisk[] as [LoopDisk];
    expect(await openCheck(one.device)).toBeNull();
    expect(await openCheck('/dev/appliance-vanished-node')).toBe('ENOENT');
    // two reads at once share the open in flight instead of failing each other
    expect(await Promise.all([openCheck(one.device), openCheck(one.device), openCheck(one.device)])).toEqual([
      null,
      null,
      null,
    ]);
  });
});
