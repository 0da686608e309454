/**
 * The disks and space watchers through the real server on a real array (lab mode, loop devices,
 * POST /disks/array): a data disk vanishing under its mounted slot, a cache whose mount is lost,
 * filesystems filled past their thresholds; each event delivered once to a routed webhook and SMTP
 * receiver, naming the thing, and cleared when the fact ends; a restart raises nothing twice; 1,000
 * cycles with a condition holding deliver one message. Cycles are driven with runOnce.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxRoot, type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf, labHostRoot, type Receivers, routedReceivers } from '../../../test-support/watchers.ts';

const run = promisify(execFile);
const MiB = 1024 ** 2;

describe('disks and space watchers (real array on loop devices)', () => {
  let work: string;
  let imageDir: string;
  let root: string;
  let s: Sandbox;
  let rx: Receivers;
  let hostRoot: ReturnType<typeof labHostRoot>;
  const disks: Record<string, LoopDisk> = {};
  const extraLoops: string[] = [];

  const mnt = (m: string) => path.join(root, 'mnt', m);
  const health = async () => {
    const r = await s.call('GET', '/health');
    expect(r.status).toBe(200);
    return r.body as {
      watchers: Array<{ name: string; lastRunAt: string | null; error: unknown; runs: number }>;
      conditions: Array<{ key: string; eventType: string; subject: string; value: string; since: string }>;
    };
  };
  const fill = (file: string, bytes: number) => run('fallocate', ['-l', String(bytes), file]);
  const freeBytes = async (dir: string) => {
    const st = await fs.statfs(dir);
    return st.bavail * st.bsize;
  };

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: [
        'losetup',
        'wipefs',
        'mkfs.xfs',
        'mkfs.ext4',
        'mount',
        'umount',
        'findmnt',
        'blkid',
        'fallocate',
      ],
    });
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'watchers-disks-'));
    imageDir = path.join(work, 'images');
    await fs.mkdir(imageDir);
    disks['parity'] = await createLoopDisk({ sizeBytes: 512 * MiB, imageDir });
    disks['data1'] = await createLoopDisk({ sizeBytes: 256 * MiB, imageDir });
    disks['data2'] = await createLoopDisk({ sizeBytes: 256 * MiB, imageDir });
    disks['cache'] = await createLoopDisk({ sizeBytes: 128 * MiB, imageDir });
    hostRoot = labHostRoot();
    s = await startSandbox({
      lab: true,
      hostRoot: hostRoot.dir,
      config: { lab: { enabled: true, imageDir } },
    });
    root = s.root;
    const body = [
      { device: disks['parity'].device, role: 'parity' },
      { device: disks['data1'].device, role: 'data', filesystem: 'ext4' },
      { device: disks['data2'].device, role: 'data', filesystem: 'ext4' },
      { device: disks['cache'].device, role: 'cache', filesystem: 'ext4' },
    ];
    const confirmation = `ERASE ${body
      .map((d) => d.device)
      .sort()
      .join(', ')}`;
    const created = await s.call('POST', '/disks/array', { disks: body, confirmation });
    expect(created.status, created.text).toBe(201);
    rx = await routedReceivers(s, [
      'disk_offline',
      'array_degraded',
      'pool_above_threshold',
      'disk_near_minfreespace',
      'cache_above_threshold',
    ]);
  }, 300_000);

  afterAll(async () => {
    const umount = (t: string) => run('umount', ['-l', t]).catch(() => undefined);
    if (root) for (const m of ['user', 'cache', 'disk2', 'disk1', 'parity1']) await umount(mnt(m));
    await s?.close();
    await rx?.close();
    for (const d of extraLoops) await run('losetup', ['-d', d]).catch(() => undefined);
    for (const d of Object.values(disks)) await d.destroy();
    if (root) removeSandboxRoot(root);
    hostRoot?.remove();
    if (work) await fs.rm(work, { recursive: true, force: true });
  }, 300_000);

  it('a healthy array holds nothing; GET /health lists every watcher with its last run', async () => {
    await s.server.ctx.watchers.runOnce('disks');
    await s.server.ctx.watchers.runOnce('space');
    const h = await health();
    expect(h.conditions).toEqual([]);
    const disksStatus = h.watchers.find((w) => w.name === 'disks')!;
    expect(disksStatus).toMatchObject({ runs: 1, error: null });
    expect(disksStatus.lastRunAt).not.toBeNull();
    expect(h.watchers.map((w) => w.name)).toEqual(expect.arrayContaining(['disks', 'space']));
  });

  it('a data disk vanishing under its mounted slot: disk_offline and array_degraded once each, cleared when it is back', async () => {
    const data2 = disks['data2']!;
    const keep = `${data2.image}.keep`;
    await fs.link(data2.image, keep);
    // The disk vanishes: its loop device's backing file is gone (the kernel shows it "(deleted)"),
    // so the inventory no longer lists it, while /mnt/disk2 stays mounted, as for a pulled disk.
    await fs.rm(data2.image);
    const status = await s.server.ctx.watchers.runOnce('disks');
    expect(status.error).toBeNull();
    const offline = await rx.waitFor('disk_offline');
    const degraded = await rx.waitFor('array_degraded');
    expect(offline.webhook[0]!.title).toBe('Array disk disk2 is offline (disappeared while mounted)');
    expect(offline.webhook[0]!.message).toContain(`disk2 (/mnt/disk2, ${data2.device})`);
    expect(offline.mail[0]!.subject).toBe(
      '[critical] Array disk disk2 is offline (disappeared while mounted)',
    );
    expect(offline.mail[0]!.body).toContain(
      'has disappeared from the system while still mounted at /mnt/disk2',
    );
    expect(degraded.webhook[0]!.message).toContain('without full parity protection');
    expect(degraded.mail[0]!.body).toContain('disk2 (/mnt/disk2');
    const h = await health();
    expect(h.conditions.map((c) => [c.key, c.eventType, c.value])).toEqual([
      ['disk:/mnt/disk2', 'disk_offline', 'disappeared while mounted'],
      ['array:degraded', 'array_degraded', 'disk2 offline'],
    ]);

    // Holding: more cycles raise nothing more.
    for (let i = 0; i < 5; i++) await s.server.ctx.watchers.runOnce('disks');
    expect(alertsOf(s, 'disk_offline')).toHaveLength(1);
    expect(alertsOf(s, 'array_degraded')).toHaveLength(1);

    // Back: the stale mount goes, the image gets its name back, a new loop device, mounted again.
    await run('umount', ['-l', mnt('disk2')]);
    await fs.rename(keep, data2.image);
    const { stdout } = await run('losetup', ['-f', '--show', data2.image]);
    const again = stdout.trim();
    extraLoops.push(again);
    await run('mount', [again, mnt('disk2')]);
    await s.server.ctx.watchers.runOnce('disks');
    expect((await health()).conditions).toEqual([]);
    const rows = s.server.ctx.sqlite
      .prepare("select key, cleared_at from watcher_conditions where source = 'disks' order by id")
      .all() as Array<{ key: string; cleared_at: string | null }>;
    expect(rows.map((r) => r.key)).toEqual(['disk:/mnt/disk2', 'array:degraded']);
    expect(rows.every((r) => r.cleared_at !== null)).toBe(true);
    expect(rx.webhooks('disk_offline')).toHaveLength(1);
  }, 120_000);

  it('the cache losing its mount is disk_offline "not mounted", without array_degraded', async () => {
    await run('umount', ['-l', mnt('cache')]);
    await s.server.ctx.watchers.runOnce('disks');
    const h = await health();
    expect(h.conditions.map((c) => [c.key, c.value])).toEqual([['disk:/mnt/cache', 'not mounted']]);
    const delivered = await rx.waitFor('disk_offline', 2);
    expect(delivered.webhook[1]!.message).toContain(
      `is connected as ${disks['cache']!.device} but nothing is mounted at /mnt/cache`,
    );
    expect(alertsOf(s, 'array_degraded')).toHaveLength(1);
    await run('mount', [disks['cache']!.device, mnt('cache')]);
    await s.server.ctx.watchers.runOnce('disks');
    expect((await health()).conditions).toEqual([]);
  }, 60_000);

  it('filesystems filled past the thresholds: cache, data disk and pool, each raised once and cleared when freed', async () => {
    const settings = await s.call('GET', '/settings/watchers');
    const put = await s.call('PUT', '/settings/watchers', {
      ...settings.body,
      space: { poolUsedPercent: 60, cacheUsedPercent: 50, diskMinFreeFactor: 2 },
    });
    expect(put.status, put.text).toBe(200);
    // cache (128 MiB) to about 70 %
    await fill(path.join(mnt('cache'), 'big'), Math.floor((await freeBytes(mnt('cache'))) * 0.75));
    // disk1 (256 MiB): leave 8 MiB free, under 2 × the lab minfreespace (128 MiB / 20 = 6 MiB)
    await fill(path.join(mnt('disk1'), 'big'), (await freeBytes(mnt('disk1'))) - 8 * MiB);
    // disk2 to 80 %, so the pool passes 60 %
    await fill(path.join(mnt('disk2'), 'big'), Math.floor((await freeBytes(mnt('disk2'))) * 0.8));
    const status = await s.server.ctx.watchers.runOnce('space');
    expect(status.error).toBeNull();
    const cache = await rx.waitFor('cache_above_threshold');
    const near = await rx.waitFor('disk_near_minfreespace');
    const pool = await rx.waitFor('pool_above_threshold');
    expect(cache.webhook[0]!.message).toMatch(
      /^The cache cache \(\/mnt\/cache, \/dev\/loop\d+\) is \d+ % full \(threshold 50 %\)/,
    );
    expect(near.webhook[0]!.message).toMatch(
      /^disk1 \(\/mnt\/disk1, \/dev\/loop\d+\) has [\d.]+ MiB free, near the pool's minimum free space of 6\.0 MiB/,
    );
    expect(near.mail[0]!.subject).toMatch(/^\[warning\] Data disk disk1 has [\d.]+ MiB free$/);
    expect(pool.webhook[0]!.message).toMatch(/^The pool \/mnt\/user is \d+ % full \(threshold 60 %\)/);
    const h = await health();
    expect(h.conditions.map((c) => c.key).sort()).toEqual([
      'space:cache',
      'space:disk:/mnt/disk1',
      'space:pool',
    ]);
    expect(h.conditions.find((c) => c.key === 'space:cache')!.subject).toMatch(/^cache \(\/mnt\/cache/);
    const audit = s.dumpDatabase();
    expect(audit).toContain('settings.watchers_update');
  }, 60_000);

  it('a restart while conditions hold raises nothing twice; 1,000 cycles deliver one message', async () => {
    const before = (await health()).conditions;
    await s.close({ keepRoot: true });
    s = await startSandbox({
      lab: true,
      root,
      admin: false,
      hostRoot: hostRoot.dir,
      config: { lab: { enabled: true, imageDir } },
    });
    const tok = await s.call(
      'POST',
      '/tokens',
      { name: 'again', role: 'admin' },
      {
        token: null,
        headers: { authorization: `Basic ${Buffer.from(`admin:${s.adminPassword}`).toString('base64')}` },
      },
    );
    s.token = tok.body.token;
    for (let i = 0; i < 1000; i++) await s.server.ctx.watchers.runOnce('space');
    const after = (await health()).conditions;
    expect(after.map((c) => [c.key, c.since])).toEqual(before.map((c) => [c.key, c.since]));
    for (const t of ['cache_above_threshold', 'disk_near_minfreespace', 'pool_above_threshold'])
      expect(alertsOf(s, t)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300)); // any stray delivery would have arrived
    expect(rx.webhooks('cache_above_threshold')).toHaveLength(1);
    expect(rx.mails('pool_above_threshold')).toHaveLength(1);
    expect((await health()).watchers.find((w) => w.name === 'space')!.runs).toBe(1000);
  }, 300_000);

  it('freed space clears every space condition (and nothing is raised for it)', async () => {
    for (const m of ['cache', 'disk1', 'disk2']) await fs.rm(path.join(mnt(m), 'big'));
    await s.server.ctx.watchers.runOnce('space');
    expect((await health()).conditions).toEqual([]);
    expect(alertsOf(s, 'pool_above_threshold')).toHaveLength(1);
  }, 60_000);
});
