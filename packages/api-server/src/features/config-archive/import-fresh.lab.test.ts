/**
 * A fresh install restored with real loop disks in lab mode (08 §14): the archive's array is
 * matched to the attached disks, the mapped ones are mounted where the archive's array expects
 * them; a mapping that names an absent or replaced disk is refused with nothing written.
 */
import { execFile } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { importBody, previewBody } from '@appliance/archive-preview/test-support';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../test-support/sandbox.ts';
import { rawRequest, treeListing } from '../../../test-support/config-archive.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

describe('fresh install with loop disks and a diskMapping', () => {
  let imageDir: string;
  const disks: LoopDisk[] = [];
  const boxes: Sandbox[] = [];
  const mounted: string[] = [];
  let archive: Buffer;
  const uuid = async (device: string) =>
    (await run('blkid', ['-p', '-s', 'UUID', '-o', 'value', device])).stdout.trim();

  beforeAll(async () => {
    await requirePrerequisites({ root: true, tools: ['losetup', 'mkfs.xfs', 'blkid', 'mount', 'findmnt'] });
    imageDir = await fs.mkdtemp(path.join(os.tmpdir(), 'import-fresh-lab-'));
    disks.push(await createLoopDisk({ sizeBytes: 300 * MiB, filesystem: 'xfs', imageDir })); // parity 1
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, filesystem: 'xfs', imageDir })); // data 1
    disks.push(await createLoopDisk({ sizeBytes: 340 * MiB, filesystem: 'xfs', imageDir })); // data 2 (replaced)
    // The installation that made the archive: its array recorded these disks (as array setup does).
    const source = await startSandbox();
    boxes.push(source);
    const insert = source.server.ctx.sqlite.prepare(
      "insert into array_disks (role, role_index, device, filesystem, fs_uuid, weak_identity, size_bytes, mountpoint) values (?, ?, '/dev/loop99', 'xfs', ?, 1, ?, ?)",
    );
    const [p, d1, d2] = disks as [LoopDisk, LoopDisk, LoopDisk];
    insert.run('parity', 1, await uuid(p.device), 300 * MiB, '/mnt/parity1');
    insert.run('data', 1, await uuid(d1.device), 320 * MiB, '/mnt/disk1');
    // Recorded with another size: the filesystem is found on a disk that is not the recorded one.
    insert.run('data', 2, await uuid(d2.device), 999 * MiB, '/mnt/disk2');
    insert.run('data', 3, '6a1c9a4e-0000-4000-8000-000000000003', 300 * MiB, '/mnt/disk3'); // absent
    source.server.ctx.sqlite
      .prepare(
        "insert into array_settings (id, create_policy, migration_pending, created_at) values (1, 'mfs', 0, ?)",
      )
      .run(new Date().toISOString());
    expect((await source.call('PUT', '/settings', { hostname: 'old-nas', timezone: 'UTC' })).status).toBe(
      200,
    );
    const r = await rawRequest({ socket: source.socket }, 'POST', '/config/export', Buffer.alloc(0));
    expect(r.status).toBe(200);
    archive = r.body;
  }, 180_000);

  afterAll(async () => {
    for (const m of mounted.reverse()) await run('umount', [m]).catch(() => undefined);
    for (const s of boxes) await s.close();
    for (const d of disks) await d.destroy();
    if (imageDir) await fs.rm(imageDir, { recursive: true, force: true });
  });

  const freshBox = async () => {
    const s = await startSandbox({ admin: false, config: { lab: { enabled: true, imageDir } } });
    boxes.push(s);
    return s;
  };
  const snapshot = (s: Sandbox) => ({
    db: s.dumpDatabase(),
    tree: treeListing(s.root, [path.join(s.root, 'var/lib/appliance/tmp')]),
  });
  const send = (s: Sandbox, body: { body: Buffer; contentType: string }, p = '/config/import') =>
    rawRequest({ socket: s.socket }, 'POST', p, body.body, { 'content-type': body.contentType });

  it('refuses a mapping of a replaced or absent disk (disk_mapping_invalid), writing nothing', async () => {
    const b = await freshBox();
    const [, , d2] = disks as [LoopDisk, LoopDisk, LoopDisk];
    const before = snapshot(b);
    for (const entry of [
      { role: 'data', roleIndex: 2, device: d2.device },
      { role: 'data', roleIndex: 3, device: d2.device },
    ]) {
      const r = await send(
        b,
        importBody(archive, { confirmation: 'RESTORE old-nas', diskMapping: { disks: [entry] } }),
      );
      expect([r.status, r.json().code, r.json().details]).toEqual([409, 'disk_mapping_invalid', { entry }]);
      expect(snapshot(b)).toEqual(before);
    }
  });

  it('mounts the matched disks where the archive’s array expects them; the others stay unmounted', async () => {
    const b = await freshBox();
    const [p, d1, d2] = disks as [LoopDisk, LoopDisk, LoopDisk];
    const preview = await send(b, previewBody(archive), '/config/import/preview');
    expect(preview.status).toBe(200);
    const bareMetal = preview.json().bareMetal;
    expect(bareMetal.disks.map((d: { state: string }) => d.state)).toEqual([
      'matched',
      'matched',
      'replaced',
      'absent',
    ]);
    expect(bareMetal.diskMapping).toEqual({
      disks: [
        { role: 'parity', roleIndex: 1, device: p.device },
        { role: 'data', roleIndex: 1, device: d1.device },
      ],
    });
    const r = await send(
      b,
      importBody(archive, { confirmation: 'RESTORE old-nas', diskMapping: bareMetal.diskMapping }),
    );
    for (const m of ['/mnt/parity1', '/mnt/disk1']) mounted.push(path.join(b.root, m));
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.json().notes.map((n: { code: string }) => n.code)).toEqual([
      'tokens_replaced',
      'array_degraded',
    ]);
    const source = async (m: string) =>
      (
        await run('findmnt', ['-n', '-r', '-o', 'SOURCE', '--mountpoint', path.join(b.root, m)]).catch(
          () => ({ stdout: '' }),
        )
      ).stdout.trim();
    expect(await source('/mnt/parity1')).toBe(p.device);
    expect(await source('/mnt/disk1')).toBe(d1.device);
    expect(await source('/mnt/disk2')).toBe('');
    expect(await source('/mnt/disk3')).toBe('');
    // The restored array: devices rewritten for the mapped slots, the others as recorded.
    const rows = b.server.ctx.sqlite
      .prepare('select role, role_index as i, device from array_disks order by role desc, role_index')
      .all();
    expect(rows).toEqual([
      { role: 'parity', i: 1, device: p.device },
      { role: 'data', i: 1, device: d1.device },
      { role: 'data', i: 2, device: '/dev/loop99' },
      { role: 'data', i: 3, device: '/dev/loop99' },
    ]);
    expect(d2.device).not.toBe('/dev/loop99');
    // The box now has the archive's array: GET /disks/array shows the mounted slots.
    const arr = await b.call('GET', '/disks/array', undefined, { via: 'unix', token: null });
    expect(
      arr.body.disks.map((d: { mountpoint: string; mounted: boolean }) => [d.mountpoint, d.mounted]),
    ).toEqual([
      ['/mnt/parity1', true],
      ['/mnt/disk1', true],
      ['/mnt/disk2', false],
      ['/mnt/disk3', false],
    ]);
  });

  it('a failure after the mounts unmounts them again: the box is as before', async () => {
    const b = await startSandbox({
      admin: false,
      config: { lab: { enabled: true, imageDir } },
      hooks: {
        importFault: (step: string) => {
          if (step === 'commit') throw new Error('injected');
        },
      },
    });
    boxes.push(b);
    // The previous test's box holds the disks: release them first.
    for (const m of mounted.splice(0)) await run('umount', [m]).catch(() => undefined);
    const [p, d1] = disks as [LoopDisk, LoopDisk];
    const before = snapshot(b);
    const mapping = {
      disks: [
        { role: 'parity', roleIndex: 1, device: p.device },
        { role: 'data', roleIndex: 1, device: d1.device },
      ],
    };
    const r = await send(b, importBody(archive, { confirmation: 'RESTORE old-nas', diskMapping: mapping }));
    expect([r.status, r.json().details]).toEqual([500, { step: 'commit' }]);
    const { stdout } = await run('findmnt', ['-n', '-r', '-o', 'TARGET']);
    expect(stdout).not.toContain(b.root);
    expect(snapshot(b)).toEqual(before);
  });
});

describe('a disk full during the import (a small loop filesystem as the box root)', () => {
  let imageDir: string;
  let disk: LoopDisk | null = null;
  let mountDir: string;
  const boxes: Sandbox[] = [];
  let archive: Buffer;

  beforeAll(async () => {
    await requirePrerequisites({ root: true, tools: ['losetup', 'mkfs.ext4', 'mount', 'umount'] });
    imageDir = await fs.mkdtemp(path.join(os.tmpdir(), 'import-full-lab-'));
    disk = await createLoopDisk({ sizeBytes: 96 * MiB, filesystem: 'ext4', imageDir });
    mountDir = path.join(imageDir, 'mnt');
    await fs.mkdir(mountDir);
    await run('mount', [disk.device, mountDir]);
    const source = await startSandbox();
    boxes.push(source);
    expect(
      (
        await source.call('PUT', '/settings', {
          hostname: 'nas-a',
          timezone: 'UTC',
          backupPassphrase: 'full disk passphrase',
        })
      ).status,
    ).toBe(200);
    await fs.writeFile(path.join(source.root, 'etc/appliance/a.custom.conf'), 'a\n');
    const stack = path.join(source.root, 'var/lib/appliance/stacks/web');
    await fs.mkdir(stack, { recursive: true });
    await fs.writeFile(path.join(stack, 'docker-compose.yml'), 'services: {}\n');
    await fs.writeFile(path.join(stack, '.env'), 'X=1\n', { mode: 0o600 });
    const r = await rawRequest({ socket: source.socket }, 'POST', '/config/export', Buffer.alloc(0));
    expect(r.status).toBe(200);
    archive = r.body;
  }, 120_000);

  afterAll(async () => {
    for (const s of boxes) await s.close();
    if (mountDir) await run('umount', [mountDir]).catch(() => undefined);
    await disk?.destroy();
    if (imageDir) await fs.rm(imageDir, { recursive: true, force: true });
  });

  /** Writes zeros until the filesystem is full (root may use the reserved blocks too). */
  function fill(file: string): void {
    const fdNum = fsSync.openSync(file, 'w');
    try {
      for (const size of [MiB, 4096, 1]) {
        const buf = Buffer.alloc(size);
        try {
          for (;;) fsSync.writeSync(fdNum, buf);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        }
      }
    } finally {
      fsSync.closeSync(fdNum);
    }
  }

  for (const step of ['swap_files', 'regenerate_samba', 'commit']) {
    it(`full from ${step} on: 500 import_failed with that step, the box exactly as before`, async () => {
      const root = path.join(mountDir, `box-${step}`);
      const filler = path.join(mountDir, `filler-${step}`);
      const b = await startSandbox({
        root,
        // The box's state directory rests on the loop disk, which a non-lab inventory cannot place:
        // a host without other disks.
        start: {
          inventory: { read: async () => ({ labMode: false, bootResolved: true, disks: [] }) } as never,
        },
        hooks: {
          importFault: (s: string) => {
            if (s === step) fill(filler);
          },
        },
      });
      boxes.push(b);
      await fs.writeFile(path.join(root, 'etc/appliance/b.custom.conf'), 'b\n');
      const snap = () => ({
        db: b.dumpDatabase(),
        tree: treeListing(root, [path.join(root, 'var/lib/appliance/tmp')]),
      });
      const before = snap();
      const body = importBody(archive, { confirmation: 'RESTORE nas-a', passphrase: 'full disk passphrase' });
      const r = await rawRequest({ socket: b.socket }, 'POST', '/config/import', body.body, {
        'content-type': body.contentType,
      });
      await fs.rm(filler, { force: true });
      expect([r.status, r.json().code, r.json().details]).toEqual([500, 'import_failed', { step }]);
      expect(snap()).toEqual(before);
      // With space again, the same import goes through.
      const again = importBody(archive, {
        confirmation: 'RESTORE nas-a',
        passphrase: 'full disk passphrase',
      });
      b.server.ctx.hooks.importFault = undefined;
      const ok = await rawRequest({ socket: b.socket }, 'POST', '/config/import', again.body, {
        'content-type': again.contentType,
      });
      expect(ok.status, ok.body.toString()).toBe(200);
    });
  }
});
