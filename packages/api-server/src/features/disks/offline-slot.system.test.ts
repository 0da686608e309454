/**
 * Issue 32 on a real array (loop disks in lab mode, xfs, a real mergerfs pool with a cache): the
 * mountpoint directories of every slot refuse writes while their disks are not mounted there
 * (`chattr +i`, after setup and at every start), the pool creates nothing on an offline disk's
 * branch from the disks watcher's cycle on (and again once it is back), a disk mounted over files
 * is reported naming them, and `GET /disks/array` shows the device a slot's disk has now (a loop
 * disk detached and attached again under another number), never the recorded one.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLabArray, eventually, type LabArray, unmountUnder } from '../../../test-support/lab-array.ts';
import { startSandbox } from '../../../test-support/sandbox.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

describe('offline array disks: no write lands in an empty mountpoint (issue 32)', () => {
  let lab: LabArray & { cache: Awaited<ReturnType<typeof createLabArray>>['cache'] };
  /** Loop devices this test attached itself (the re-attached disk, the placeholders). */
  const ourLoops: string[] = [];
  const SLOTS = ['/mnt/parity1', '/mnt/disk1', '/mnt/disk2', '/mnt/cache'];
  const pool = () => lab.real('/mnt/user');
  const ctx = () => lab.s.server.ctx;
  const uuidOf = async (mountpoint: string) =>
    (await lab.s.call('GET', '/disks/array')).body.disks.find(
      (d: { mountpoint: string }) => d.mountpoint === mountpoint,
    ).fsUuid as string;

  /** The attribute flags of each slot's own directory, looked at under the mounted disks. */
  async function underlyingFlags(): Promise<Record<string, string>> {
    const peek = path.join(lab.work, 'peek');
    await fs.mkdir(peek, { recursive: true });
    await run('mount', ['--bind', '--make-private', lab.real('/mnt'), peek]);
    try {
      const out: Record<string, string> = {};
      for (const m of SLOTS) {
        const dir = path.join(peek, path.basename(m));
        const flags = (await run('lsattr', ['-d', dir])).stdout.trim().split(/\s+/)[0] ?? '';
        out[m] = `${flags.includes('i') ? 'immutable' : 'writable'} ${(await fs.readdir(dir)).length}`;
      }
      return out;
    } finally {
      await run('umount', [peek]);
    }
  }
  const allSealed = Object.fromEntries(SLOTS.map((m) => [m, 'immutable 0']));

  const branches = async () =>
    (await run('getfattr', ['--only-values', '-n', 'user.mergerfs.branches', path.join(pool(), '.mergerfs')]))
      .stdout;
  const modeOf = async (mountpoint: string) =>
    new RegExp(`${lab.real(mountpoint)}=(\\w+)`).exec(await branches())?.[1];
  const conditions = async () =>
    (await lab.s.call('GET', '/health')).body.conditions as Array<{
      key: string;
      eventType: string;
      value: string;
    }>;

  beforeAll(async () => {
    lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 400, dataSizeMiB: 320, cacheSizeMiB: 320 });
  }, 300_000);

  afterAll(async () => {
    if (lab) await unmountUnder(lab.s.root);
    for (const d of ourLoops) await run('losetup', ['-d', d]).catch(() => undefined);
    await lab?.destroy();
  }, 120_000);

  it('every slot mountpoint (parity, data, cache) is immutable and empty under its disk after setup', async () => {
    expect(await underlyingFlags()).toEqual(allSealed);
    // mounting over the flag works: every disk is mounted, and the pool is writable
    await fs.writeFile(path.join(pool(), 'first.txt'), 'x');
    expect(
      (await lab.s.call('GET', '/disks/array')).body.disks.every((d: { mounted: boolean }) => d.mounted),
    ).toBe(true);
  });

  it('a data disk unmounted: its branch takes no new file from the watcher cycle on, nothing lands in /mnt/disk2', async () => {
    const uuid = await uuidOf('/mnt/disk2');
    await run('umount', [lab.real('/mnt/disk2')]);
    // the empty directory refuses writes even before the watcher sees the disk gone
    await expect(fs.writeFile(lab.real('/mnt/disk2/direct.txt'), 'x')).rejects.toMatchObject({
      code: 'EPERM',
    });
    await ctx().watchers.runOnce('disks');
    expect(await modeOf('/mnt/disk2')).toBe('NC');
    expect(await modeOf('/mnt/disk1')).toBe('RW');
    expect((await conditions()).map((c) => c.key)).toEqual(
      expect.arrayContaining(['disk:/mnt/disk2', 'array:degraded']),
    );
    // mfs would pick the system disk's directory (the most free space): every write goes elsewhere
    for (let i = 0; i < 20; i++) {
      await fs.mkdir(path.join(pool(), `share${i % 3}`), { recursive: true });
      await fs.writeFile(path.join(pool(), `share${i % 3}`, `while-offline-${i}.txt`), `file ${i}`);
    }
    expect(await fs.readdir(lab.real('/mnt/disk2'))).toEqual([]);
    const elsewhere = async (m: string) =>
      (await fs.readdir(lab.real(m), { recursive: true })).filter((n) =>
        String(n).includes('while-offline-'),
      );
    expect((await elsewhere('/mnt/disk1')).length + (await elsewhere('/mnt/cache')).length).toBe(20);

    // back: mounted again, the next cycle makes the branch writable again and clears the condition
    await run('mount', [`UUID=${uuid}`, lab.real('/mnt/disk2')]);
    await ctx().watchers.runOnce('disks');
    expect(await modeOf('/mnt/disk2')).toBe('RW');
    expect(await conditions()).toEqual([]);
    expect(await underlyingFlags()).toEqual(allSealed);
  });

  it('the cache unmounted: the same (its branch NC, its directory refuses writes), RW once back', async () => {
    const uuid = await uuidOf('/mnt/cache');
    await run('umount', [lab.real('/mnt/cache')]);
    await ctx().watchers.runOnce('disks');
    expect(await modeOf('/mnt/cache')).toBe('NC');
    await fs.writeFile(path.join(pool(), 'cache-offline.txt'), 'y');
    expect(await fs.readdir(lab.real('/mnt/cache'))).toEqual([]);
    await run('mount', [`UUID=${uuid}`, lab.real('/mnt/cache')]);
    await ctx().watchers.runOnce('disks');
    expect(await modeOf('/mnt/cache')).toBe('RW');
  });

  it('a disk mounted over files (left by an older version) is reported naming them; the directory is sealed again once emptied', async () => {
    const uuid = await uuidOf('/mnt/disk1');
    const dir = lab.real('/mnt/disk1');
    await run('umount', [dir]);
    await ctx().watchers.runOnce('disks'); // the watcher sees it offline
    await run('chattr', ['-i', dir]);
    await fs.writeFile(path.join(dir, 'stray-report.docx'), 'written while the disk was away');
    await run('mount', [`UUID=${uuid}`, dir]);
    await ctx().watchers.runOnce('disks');
    const hidden = (await lab.s.call('GET', '/health')).body.conditions.find(
      (c: { key: string }) => c.key === 'disk:/mnt/disk1:hidden',
    );
    expect(hidden).toMatchObject({ eventType: 'disk_offline', value: 'mounted over 1 hidden entry' });
    const alerts = (await lab.s.call('GET', '/notifications/alerts?limit=50')).body.alerts as Array<{
      eventType: string;
      title: string;
      message: string;
    }>;
    const alert = alerts.find((a) => a.title === 'Array disk disk1 is mounted over files on the system disk');
    expect(alert?.eventType).toBe('disk_offline');
    expect(alert?.message).toContain('/mnt/disk1 on the system disk: stray-report.docx.');
    expect((await underlyingFlags())['/mnt/disk1']).toBe('writable 1');

    // the administrator moves the file into the pool and mounts again: cleared, sealed
    await run('umount', [dir]);
    await ctx().watchers.runOnce('disks');
    await fs.rename(path.join(dir, 'stray-report.docx'), path.join(lab.work, 'stray-report.docx'));
    await run('mount', [`UUID=${uuid}`, dir]);
    await ctx().watchers.runOnce('disks');
    expect((await conditions()).map((c) => c.key)).not.toContain('disk:/mnt/disk1:hidden');
    expect(await underlyingFlags()).toEqual(allSealed);
  });

  it('a restart seals every mountpoint again (an administrator took the flag off)', async () => {
    const dir = lab.real('/mnt/parity1');
    const uuid = await uuidOf('/mnt/parity1');
    await run('umount', [dir]);
    await run('chattr', ['-i', dir]);
    await run('mount', [`UUID=${uuid}`, dir]);
    expect((await underlyingFlags())['/mnt/parity1']).toBe('writable 0');
    const root = lab.s.root;
    await lab.s.close({ keepRoot: true });
    lab.s = await startSandbox({
      root,
      lab: true,
      config: { lab: { enabled: true, imageDir: lab.imageDir } },
      start: { runner: lab.runner, clock: lab.clock, scheduler: false },
    });
    // the start seals in the background (it never delays the service)
    await eventually(async () =>
      JSON.stringify(await underlyingFlags()) === JSON.stringify(allSealed) ? true : undefined,
    );
  }, 120_000);

  it('GET /disks/array shows the device a slot’s disk has now: null while detached, the new loop number after', async () => {
    const slot = async () =>
      (await lab.s.call('GET', '/disks/array')).body.disks.find(
        (d: { mountpoint: string }) => d.mountpoint === '/mnt/disk1',
      ) as { device: string | null; mounted: boolean };
    const disk = lab.disks.data[0]!;
    const old = disk.device;
    expect(await slot()).toMatchObject({ device: old, mounted: true });
    const uuid = await uuidOf('/mnt/disk1');
    await run('umount', [lab.real('/mnt/disk1')]);
    await run('losetup', ['-d', old]);
    await new Promise((r) => setTimeout(r, 200));
    expect(await slot()).toMatchObject({ device: null, mounted: false });

    // the old number stays taken by a placeholder, so the disk comes back under another one
    for (let i = 0; i < 8; i++) {
      const free = (await run('losetup', ['-f'])).stdout.trim();
      if (free !== old) break;
      const placeholder = path.join(lab.work, `placeholder-${i}.img`);
      await fs.writeFile(placeholder, Buffer.alloc(MiB));
      ourLoops.push((await run('losetup', ['-f', '--show', placeholder])).stdout.trim());
    }
    const now = (await run('losetup', ['-f', '--show', '-P', disk.image])).stdout.trim();
    ourLoops.unshift(now);
    expect(now).not.toBe(old);
    // the new device itself (a UUID lookup can still meet the kernel's or blkid's view of the old
    // one for a moment on a loaded host), retried briefly while the new loop device settles
    for (let attempt = 1; ; attempt++) {
      const r = await run('mount', [now, lab.real('/mnt/disk1')]).then(
        () => null,
        (err: unknown) => err,
      );
      if (r === null) break;
      if (attempt >= 10) throw r;
      await new Promise((res) => setTimeout(res, 500));
    }
    expect((await run('blkid', ['-p', '-s', 'UUID', '-o', 'value', now])).stdout.trim()).toBe(uuid);
    expect(await slot()).toMatchObject({ device: now, mounted: true });
    const all = (await lab.s.call('GET', '/disks/array')).body.disks.map((d: { device: string }) => d.device);
    expect(all).not.toContain(old);
  });
});
