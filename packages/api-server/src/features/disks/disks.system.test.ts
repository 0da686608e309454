import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type LoopDisk, edgeBytes, realRootDisks, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import {
  fingerprint,
  installGuardShims,
  loggingRunner,
  loop,
  quiesce,
} from '../../../test-support/disks/lab.ts';

const run = promisify(execFile);
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/**
 * Disks and the array through the real server, on loop devices in lab mode (03 §16, 08 §9):
 * array setup, the plans and every refusal, the read-only proof, the real root disk refused.
 */
describe('disks and the array (lab mode, real loop devices)', () => {
  let work: string;
  let imageDir: string;
  let s: Sandbox;
  let runner: ReturnType<typeof loggingRunner>;
  let rootDisk: string;
  const L: Record<string, LoopDisk> = {};
  const all = () => Object.values(L);

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: [
        'losetup',
        'wipefs',
        'mkfs.xfs',
        'mkfs.ext4',
        'mkfs.vfat',
        'xfs_admin',
        'xfs_freeze',
        'parted',
        'blkid',
        'mount',
        'umount',
        'findmnt',
        'lsblk',
        'mergerfs',
      ],
    });
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'disks-sys-'));
    imageDir = path.join(work, 'images');
    await fs.mkdir(imageDir);
    runner = loggingRunner(await installGuardShims(path.join(work, 'shims'), imageDir));
    // members (formatted by array setup)
    L['parity'] = await loop(imageDir, 3 * GiB);
    L['data1'] = await loop(imageDir, 2 * GiB);
    L['data2'] = await loop(imageDir, 2 * GiB);
    L['cache'] = await loop(imageDir, 1 * GiB);
    // spares
    L['same'] = await loop(imageDir, 3 * GiB); // = parity
    L['big'] = await loop(imageDir, 4 * GiB);
    L['copy'] = await loop(imageDir, 2 * GiB, 'xfs'); // becomes a copy of data1's UUID
    L['small'] = await loop(imageDir, 1.5 * GiB);
    L['old'] = await loop(imageDir, 2 * GiB, 'ext4', 'old');
    L['stick'] = await loop(imageDir, 64 * MiB, 'vfat', 'UNRAID');
    L['mounted'] = await loop(imageDir, 512 * MiB, 'xfs', 'busy');
    L['parted'] = await loop(imageDir, 512 * MiB, 'ext4', 'inpart', true);
    await fs.mkdir(path.join(work, 'busy'));
    await run('mount', [L['mounted'].device, path.join(work, 'busy')]);
    rootDisk = (await realRootDisks())[0] as string;
    s = await startSandbox({ lab: true, config: { lab: { enabled: true, imageDir } }, start: { runner } });
  }, 300_000);

  afterAll(async () => {
    const umount = (t: string) =>
      run('umount', [t]).catch(() => run('umount', ['-l', t]).catch(() => undefined));
    if (s) {
      await umount(path.join(s.root, 'mnt/user'));
      for (const m of ['cache', 'disk2', 'disk1', 'parity1']) await umount(path.join(s.root, 'mnt', m));
      await s.close();
    }
    await umount(path.join(work, 'busy'));
    for (const d of all()) await d.destroy();
    await fs.rm(work, { recursive: true, force: true });
  }, 300_000);

  const dev = (k: string) => (L[k] as LoopDisk).device;
  const detached = new Set<string>();
  /** Lab devices still attached (a detached number may be reused by another process at once). */
  const labDevices = () =>
    all()
      .map((d) => d.device)
      .filter((d) => !detached.has(d));
  const fp = () => fingerprint({ dump: () => s.dumpDatabase(), devices: labDevices(), root: s.root });

  /** Runs `fn` and proves the §10 fingerprint is unchanged by it. */
  async function unchanged<T>(fn: () => Promise<T>): Promise<T> {
    await fingerprint({ dump: () => '', devices: [], root: s.root }); // a first walk may refresh atimes (relatime) …
    await quiesce(labDevices()); // … which the freeze writes out now, with any pending log work
    const before = await fp();
    const result = await fn();
    expect(await fp()).toEqual(before);
    return result;
  }

  /** Calls a read-only route and proves §10: nothing changed, only blkid ran. */
  async function readOnly(method: string, route: string, body: unknown) {
    const logStart = runner.log.length;
    const r = await unchanged(() => s.call(method, route, body));
    const ran = runner.log.slice(logStart);
    expect(ran.filter((c) => !c.startsWith('blkid -p -i -o export '))).toEqual([]);
    return r;
  }

  it('GET /disks lists the lab disks (blkid fallback), the real root disk as boot, the stick flagged', async () => {
    const r = await readOnly('GET', '/disks', undefined);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ labMode: true, bootResolved: true });
    const by = (d: string) => r.body.disks.find((x: { device: string }) => x.device === d);
    for (const d of labDevices())
      expect(by(d)).toMatchObject({
        weakIdentity: true,
        wwn: null,
        serial: null,
        arrayMountpoint: null,
        externalLabel: null,
      });
    expect(by(rootDisk)).toMatchObject({ boot: true, inUse: true });
    expect(by(dev('old'))).toMatchObject({ filesystem: 'ext4', label: 'old' });
    expect(by(dev('stick'))).toMatchObject({ foreignStick: true });
    expect(by(dev('mounted'))).toMatchObject({ inUse: true, mountpoints: [path.join(work, 'busy')] });
    expect(by(dev('parted')).partitions).toEqual([
      expect.objectContaining({ device: `${dev('parted')}p1`, number: 1, filesystem: 'ext4' }),
    ]);
    expect(by(dev('parity'))).not.toHaveProperty('lab');
  });

  it('array setup refuses bad input, the root disk, a stick and a wrong phrase, writing nothing', async () => {
    const disks = [
      { device: dev('parity'), role: 'parity' },
      { device: dev('data1'), role: 'data' },
      { device: dev('data2'), role: 'data', filesystem: 'xfs' },
      { device: dev('cache'), role: 'cache' },
    ];
    const phrase = `ERASE ${disks
      .map((d) => d.device)
      .sort()
      .join(', ')}`;
    const refused = async (body: unknown, status: number, code: string, reason?: string) => {
      const logStart = runner.log.length;
      const r = await unchanged(() => s.call('POST', '/disks/array', body));
      expect([r.status, r.body.code, r.body.details?.reason]).toEqual([status, code, reason]);
      // only version queries and blkid probes: nothing wiped, formatted or mounted
      const writes = runner.log
        .slice(logStart)
        .filter((c) => /^(wipefs|mkfs\.\w+|mount|mergerfs) /.test(c) && !/ (--version|-V)$/.test(c));
      expect(writes).toEqual([]);
      return r;
    };
    const wrong = await refused({ disks, confirmation: 'ERASE' }, 409, 'confirmation_required');
    expect(wrong.body.details.expected).toBe(phrase);
    // the machine's real root disk, whatever the request says (even its own correct phrase)
    const withRoot = [...disks, { device: rootDisk, role: 'data' }];
    await refused(
      {
        disks: withRoot,
        confirmation: `ERASE ${withRoot
          .map((d) => d.device)
          .sort()
          .join(', ')}`,
      },
      400,
      'invalid_plan',
      'boot_device',
    );
    await refused(
      {
        disks: [
          { device: rootDisk, role: 'parity' },
          { device: dev('data1'), role: 'data' },
        ],
        confirmation: 'anything',
      },
      400,
      'invalid_plan',
      'boot_device',
    );
    await refused(
      { disks: [...disks, { device: dev('stick'), role: 'data' }], confirmation: 'x' },
      409,
      'foreign_stick',
    );
    await refused(
      { disks: [...disks, { device: dev('mounted'), role: 'data' }] },
      400,
      'invalid_plan',
      'disk_mounted',
    );
    await refused(
      { disks: [...disks, { device: `${dev('parted')}p1`, role: 'data' }] },
      400,
      'unmanaged_device',
    );
    await refused({ disks: [...disks, { device: dev('data1'), role: 'data' }] }, 400, 'bad_request');
    await refused(
      {
        disks: [
          { device: dev('small'), role: 'parity' },
          { device: dev('data1'), role: 'data' },
          { device: dev('big'), role: 'data' },
        ],
      },
      400,
      'invalid_plan',
      'parity_too_small',
    );
    await refused(
      {
        disks: [
          { device: dev('parity'), role: 'parity', filesystem: 'ext4' },
          { device: dev('data1'), role: 'data' },
        ],
      },
      400,
      'invalid_plan',
      'parity_not_xfs',
    );
    await refused(
      { disks: [{ device: dev('parity'), role: 'parity' }] },
      400,
      'invalid_plan',
      'no_data_disk',
    );
    for (const bad of [
      { disks: [{ device: '/dev/../sda', role: 'data' }] },
      { disks: [{ device: 'sdb', role: 'data' }] },
      { disks: [{ device: `/dev/${'a'.repeat(4096)}`, role: 'data' }] },
      { disks: [{ device: dev('data1'), role: 'data', extra: 1 }] },
      { disks: 'all' },
      { disks: [] },
      { disks, createPolicy: 'random' },
      { disks, confirmation: 5 },
    ]) {
      await refused(bad, 400, 'bad_request');
    }
  }, 300_000);

  it('array setup formats and mounts parity, two data disks and a cache; GET /disks/array shows them', async () => {
    const disks = [
      { device: dev('data1'), role: 'data' },
      { device: dev('parity'), role: 'parity' },
      { device: dev('data2'), role: 'data', filesystem: 'xfs' },
      { device: dev('cache'), role: 'cache' },
    ];
    const confirmation = `ERASE ${disks
      .map((d) => d.device)
      .sort()
      .join(', ')}`;
    const logStart = runner.log.length;
    const systemUnitsBefore = await fs.readdir('/etc/systemd/system').catch(() => []);
    const r = await s.call('POST', '/disks/array', { disks, createPolicy: 'mfs', confirmation });
    expect(r.status).toBe(201);
    // lab mode with a root prefix: no boot-persistent mount unit anywhere, systemctl never ran (08 §9.3)
    const sandboxFiles = await fs.readdir(s.root, { recursive: true });
    expect(sandboxFiles.filter((p) => /\.(mount|device\.d)$|systemd/.test(p))).toEqual([]);
    expect(runner.log.slice(logStart).filter((c) => c.startsWith('systemctl'))).toEqual([]);
    expect(await fs.readdir('/etc/systemd/system').catch(() => [])).toEqual(systemUnitsBefore);
    expect(r.body).toMatchObject({
      configured: true,
      createPolicy: 'mfs',
      poolMounted: true,
      migrationPending: false,
    });
    expect(
      r.body.disks.map((d: Record<string, unknown>) => [
        d.role,
        d.roleIndex,
        d.mountpoint,
        d.device,
        d.mounted,
        d.weakIdentity,
      ]),
    ).toEqual([
      ['parity', 1, '/mnt/parity1', dev('parity'), true, true],
      ['data', 1, '/mnt/disk1', dev('data1'), true, true],
      ['data', 2, '/mnt/disk2', dev('data2'), true, true],
      ['cache', 1, '/mnt/cache', dev('cache'), true, true],
    ]);
    for (const d of r.body.disks) {
      const probe = (await run('blkid', ['-p', '-o', 'export', d.device])).stdout;
      expect(probe).toContain('TYPE=xfs');
      expect(probe).toContain(`UUID=${d.fsUuid}`);
    }
    expect(await fs.readFile(path.join(s.root, 'etc/appliance/snapraid.conf'), 'utf8')).toContain(
      `data d2 ${s.root}/mnt/disk2/`,
    );
    const again = await s.call('POST', '/disks/array', { disks, confirmation });
    expect([again.status, again.body.code]).toEqual([409, 'array_exists']);
    const arr = await s.call('GET', '/disks/array');
    expect(arr.body.disks).toHaveLength(4);
    const audit = s.dumpDatabase();
    expect(audit).toContain('array.create');
    const listed = await s.call('GET', '/disks');
    expect(listed.body.disks.find((d: { device: string }) => d.device === dev('data2')).arrayMountpoint).toBe(
      '/mnt/disk2',
    );
  }, 300_000);

  it('upgrade plans for a data and a parity slot onto larger loop disks; read-only', async () => {
    const data = await readOnly('POST', '/disks/array/upgrade/plan', {
      mountpoint: '/mnt/disk2',
      device: dev('same'),
    });
    expect(data.status).toBe(200);
    expect(data.body).toMatchObject({
      mountpoint: '/mnt/disk2',
      role: 'data',
      roleIndex: 2,
      previousDevice: dev('data2'),
      previousSizeBytes: 2 * GiB,
      replacementDevice: dev('same'),
      sizeBytes: 3 * GiB,
      weakIdentity: true,
      filesystem: 'xfs',
      newMountpoint: null,
      confirmation: `ERASE ${dev('same')}`,
      estimate: { basis: 'used_bytes', passes: 2, assumedBytesPerSecond: 150000000 },
    });
    expect(data.body.previousUsedBytes).toBeGreaterThan(0);
    expect(data.body.steps).toHaveLength(8);
    expect(data.body.warnings.map((w: { code: string }) => w.code)).toEqual([
      'single_parity',
      'replacement_weak_identity',
    ]);

    const parity = await readOnly('POST', '/disks/array/upgrade/plan', {
      mountpoint: '/mnt/parity1',
      device: dev('big'),
    });
    expect(parity.status).toBe(200);
    expect(parity.body).toMatchObject({
      role: 'parity',
      filesystem: 'xfs',
      newMountpoint: '/mnt/parity2',
      previousDevice: dev('parity'),
      sizeBytes: 4 * GiB,
    });
    expect(parity.body.steps).toHaveLength(7);
    expect(parity.body.estimate).toMatchObject({ basis: 'disk_size', bytesToCopy: 3 * GiB, passes: 3 });

    const old = await readOnly('POST', '/disks/array/upgrade/plan', {
      mountpoint: '/mnt/disk1',
      device: dev('old'),
      filesystem: 'ext4',
    });
    expect(old.body).toMatchObject({ currentFilesystem: 'ext4', currentLabel: 'old', filesystem: 'ext4' });
    expect(old.body.warnings.map((w: { code: string }) => w.code)).toContain('replacement_not_blank');
  }, 300_000);

  it('every refusal of the plans, each read-only; the real root disk refused by every plan', async () => {
    const expectRefusal = async (
      route: string,
      body: unknown,
      status: number,
      code: string,
      reason?: string,
    ) => {
      const r = await readOnly('POST', route, body);
      expect([r.status, r.body.code, r.body.details?.reason]).toEqual([status, code, reason]);
      return r;
    };
    const up = '/disks/array/upgrade/plan';
    const rp = '/disks/array/replace/plan';
    const big = await expectRefusal(
      up,
      { mountpoint: '/mnt/disk1', device: dev('big') },
      400,
      'invalid_plan',
      'exceeds_parity',
    );
    expect(big.body.message).toMatch(/upgrade parity first$/);
    for (const route of [up, rp]) {
      for (const mountpoint of ['/mnt/disk1', '/mnt/parity1']) {
        const r = route === rp ? 409 : 400;
        if (route === rp)
          await expectRefusal(route, { mountpoint, device: rootDisk }, r, 'slot_disk_present');
        else await expectRefusal(route, { mountpoint, device: rootDisk }, 400, 'invalid_plan', 'boot_device');
      }
    }
    await expectRefusal(up, { mountpoint: '/mnt/disk9', device: dev('same') }, 404, 'disk_slot_not_found');
    await expectRefusal(up, { mountpoint: '/mnt/cache', device: dev('same') }, 404, 'disk_slot_not_found');
    await expectRefusal(
      up,
      { mountpoint: '/mnt/disk1', device: `${dev('parted')}p1` },
      400,
      'unmanaged_device',
    );
    await expectRefusal(up, { mountpoint: '/mnt/disk1', device: '/dev/loop999' }, 400, 'unmanaged_device');
    await expectRefusal(
      up,
      { mountpoint: '/mnt/disk1', device: dev('mounted') },
      400,
      'invalid_plan',
      'disk_mounted',
    );
    await expectRefusal(up, { mountpoint: '/mnt/disk1', device: dev('stick') }, 409, 'foreign_stick');
    // a member of the running array (mounted) is named as the member it is, never "in use"
    // (03 §5 revised: R5–R7 before R4; issue 32)
    await expectRefusal(
      up,
      { mountpoint: '/mnt/disk1', device: dev('data2') },
      400,
      'invalid_plan',
      'already_member',
    );
    await expectRefusal(
      up,
      { mountpoint: '/mnt/disk1', device: dev('data1') },
      400,
      'invalid_plan',
      'same_disk',
    );
    await expectRefusal(
      up,
      { mountpoint: '/mnt/disk1', device: dev('parity') },
      400,
      'invalid_plan',
      'already_member',
    );
    await expectRefusal(
      up,
      { mountpoint: '/mnt/parity1', device: dev('same'), filesystem: 'ext4' },
      400,
      'invalid_plan',
      'parity_not_xfs',
    );
    await expectRefusal(
      up,
      { mountpoint: '/mnt/parity1', device: dev('small') },
      400,
      'invalid_plan',
      'parity_too_small',
    );

    // a loop disk carrying data1's filesystem UUID and size is the member's disk
    const arr = await s.call('GET', '/disks/array');
    const disk1 = arr.body.disks.find((d: { mountpoint: string }) => d.mountpoint === '/mnt/disk1');
    await run('xfs_admin', ['-U', disk1.fsUuid, dev('copy')]);
    await expectRefusal(
      up,
      { mountpoint: '/mnt/disk2', device: dev('copy') },
      400,
      'invalid_plan',
      'already_member',
    );
    // while both are attached, /mnt/disk1's disk cannot be told apart: it counts as missing, naming both
    const amb = await readOnly('POST', up, { mountpoint: '/mnt/disk1', device: dev('same') });
    expect([amb.status, amb.body.code, [...amb.body.details.candidates].sort()]).toEqual([
      409,
      'slot_disk_missing',
      [dev('data1'), dev('copy')].sort(),
    ]);
    await run('xfs_admin', ['-U', 'generate', dev('copy')]);

    // a slot in removal
    for (const state of ['evacuating', 'evacuated', 'unpooled', 'unlisted']) {
      expect(
        (await s.call('PUT', '/disks/array/removal-state', { mountpoint: '/mnt/disk2', removalState: state }))
          .status,
      ).toBe(200);
      const r = await expectRefusal(
        up,
        { mountpoint: '/mnt/disk2', device: dev('same') },
        409,
        'disk_leaving_array',
      );
      expect(r.body.details).toEqual({ mountpoint: '/mnt/disk2', removalState: state });
    }
    expect(
      (await s.call('PUT', '/disks/array/removal-state', { mountpoint: '/mnt/disk2', removalState: null }))
        .body.removalState,
    ).toBeNull();
  }, 300_000);

  it('bad input is 400 bad_request and writes nothing', async () => {
    const logStart = runner.log.length;
    const bodies = [
      { mountpoint: '/mnt/../etc', device: dev('same') },
      { mountpoint: 'mnt/disk1', device: dev('same') },
      { mountpoint: '/mnt/disk1', device: '/dev/../sda' },
      { mountpoint: '/mnt/disk1', device: '/dev/disk/by-id/wwn-0x1' },
      { mountpoint: '/mnt/disk1', device: '/dev/mapper/root' },
      { mountpoint: '/mnt/disk1', device: 'loop1' },
      { mountpoint: '/mnt/disk1', device: '/etc/passwd' },
      { mountpoint: '/mnt/disk1', device: `/dev/${'x'.repeat(4096)}` },
      { mountpoint: `/mnt/disk${'1'.repeat(4096)}`, device: dev('same') },
      { mountpoint: 1, device: dev('same') },
      { mountpoint: '/mnt/disk1', device: ['/dev/sda'] },
      { mountpoint: '/mnt/disk1', device: dev('same'), filesystem: 'ntfs' },
      { mountpoint: '/mnt/disk1', device: dev('same'), filesytem: 'xfs' },
      {},
      [],
      'text',
    ];
    await unchanged(async () => {
      for (const body of bodies) {
        for (const route of [
          '/disks/array/upgrade/plan',
          '/disks/array/replace/plan',
          '/disks/array/upgrade',
        ]) {
          const r = await s.call('POST', route, body);
          expect([route, r.status, r.body.code]).toEqual([route, 400, 'bad_request']);
        }
      }
    }); // one fingerprint around all of them: nothing was written by any
    expect(runner.log.slice(logStart)).toEqual([]); // refused before any host access
    const r = await s.call('PUT', '/disks/array/removal-state', {
      mountpoint: '/mnt/disk1',
      removalState: 'gone',
    });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
  }, 300_000);

  it('removal state rules and the migration flag', async () => {
    const put = (mountpoint: string, removalState: string | null) =>
      s.call('PUT', '/disks/array/removal-state', { mountpoint, removalState });
    expect((await put('/mnt/disk7', 'evacuating')).body.code).toBe('disk_slot_not_found');
    expect((await put('/mnt/parity1', 'evacuating')).body.code).toBe('not_a_data_disk');
    expect((await put('/mnt/disk1', 'evacuating')).status).toBe(200);
    const busy = await put('/mnt/disk2', 'evacuated');
    expect([busy.status, busy.body.code]).toEqual([409, 'removal_in_progress']);
    expect((await put('/mnt/disk1', null)).status).toBe(200);

    expect((await s.call('GET', '/migration')).body).toEqual({ pending: false, since: null });
    const on = await s.call('POST', '/migration/pending', { pending: true });
    expect(on.status).toBe(200);
    expect(on.body.pending).toBe(true);
    expect(typeof on.body.since).toBe('string');
    expect((await s.call('GET', '/disks/array')).body.migrationPending).toBe(true);
    expect((await s.call('POST', '/migration/pending', { pending: false })).body).toEqual({
      pending: false,
      since: null,
    });
    expect((await s.call('POST', '/migration/pending', { pending: 'yes' })).status).toBe(400);
  });

  it('the upgrade operation: refusals in order, each writing nothing (the jobs: disk-jobs.*.system.test.ts)', async () => {
    const up = (body: Record<string, unknown>) => s.call('POST', '/disks/array/upgrade', body);
    const edgesBefore = (await edgeBytes(dev('big'))).toString('hex');
    expect(
      (
        await up({
          mountpoint: '/mnt/parity1',
          device: rootDisk,
          newMountpoint: '/mnt/parity2',
          confirmation: `ERASE ${rootDisk}`,
        })
      ).body.details.reason,
    ).toBe('boot_device');
    const stale = await up({
      mountpoint: '/mnt/parity1',
      device: dev('big'),
      newMountpoint: '/mnt/parity1',
      confirmation: `ERASE ${dev('big')}`,
    });
    expect([stale.status, stale.body.details?.reason]).toEqual([400, 'new_mountpoint_mismatch']);
    const wrong = await up({
      mountpoint: '/mnt/parity1',
      device: dev('big'),
      newMountpoint: '/mnt/parity2',
      confirmation: `erase ${dev('big')}`,
    });
    expect([wrong.status, wrong.body.code, wrong.body.details.expected]).toEqual([
      409,
      'confirmation_required',
      `ERASE ${dev('big')}`,
    ]);
    // a data slot is no longer refused for a started array (issue 21); a wrong phrase still stops it
    const data = await up({
      mountpoint: '/mnt/disk2',
      device: dev('same'),
      confirmation: `ERASE ${dev('big')}`,
    });
    expect([data.status, data.body.code, data.body.details?.expected]).toEqual([
      409,
      'confirmation_required',
      `ERASE ${dev('same')}`,
    ]);
    expect((await edgeBytes(dev('big'))).toString('hex')).toBe(edgesBefore);
    expect(runner.log.filter((c) => /^(wipefs|mkfs)/.test(c) && c.includes(dev('big')))).toEqual([]);
  }, 300_000);

  it('a detached member: slot_disk_missing, member_missing, and the replace plan (read-only)', async () => {
    const umount = (t: string) => run('umount', [t]).catch(() => run('umount', ['-l', t]));
    await umount(path.join(s.root, 'mnt/user'));
    await umount(path.join(s.root, 'mnt/disk2'));
    await run('losetup', ['-d', dev('data2')]);
    detached.add(dev('data2'));
    await new Promise((r) => setTimeout(r, 200));
    const missing = await readOnly('POST', '/disks/array/upgrade/plan', {
      mountpoint: '/mnt/disk2',
      device: dev('same'),
    });
    expect([missing.status, missing.body.code, missing.body.details]).toEqual([
      409,
      'slot_disk_missing',
      { mountpoint: '/mnt/disk2', recordedDevice: dev('data2') },
    ]);
    const member = await readOnly('POST', '/disks/array/upgrade/plan', {
      mountpoint: '/mnt/disk1',
      device: dev('same'),
    });
    expect([member.status, member.body.details?.reason, member.body.details?.mountpoints]).toEqual([
      400,
      'member_missing',
      ['/mnt/disk2'],
    ]);
    const replace = await readOnly('POST', '/disks/array/replace/plan', {
      mountpoint: '/mnt/disk2',
      device: dev('same'),
    });
    expect(replace.status).toBe(200);
    expect(replace.body).toMatchObject({
      previousDevice: dev('data2'),
      newMountpoint: null,
      previousUsedBytes: null,
      rebuildCommand: 'snapraid fix -d d2',
    });
    expect(replace.body.steps).toHaveLength(6);
    const root = await readOnly('POST', '/disks/array/replace/plan', {
      mountpoint: '/mnt/disk2',
      device: rootDisk,
    });
    expect([root.status, root.body.code, root.body.details?.reason]).toEqual([
      400,
      'invalid_plan',
      'boot_device',
    ]);
    const tooSmall = await readOnly('POST', '/disks/array/replace/plan', {
      mountpoint: '/mnt/disk2',
      device: dev('small'),
    });
    expect([tooSmall.status, tooSmall.body.details?.reason]).toEqual([400, 'replacement_too_small']);
  }, 300_000);
});
