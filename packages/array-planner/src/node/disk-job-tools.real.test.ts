/**
 * The disk jobs' adapters against the real tools: getfacl/setfacl and getfattr/setfattr (metadata
 * SnapRAID does not keep), rsync (copy with progress, cancel), a real mergerfs pool (branch modes),
 * loop devices with xfs (settle a slot on one disk), and mount-unit replacement in a unit directory.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCommandRunner, createHostPaths, createInventoryReader } from '@appliance/common';
import { type LoopDisk, createLoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DiskJobParams, settlement } from '../core/disk-job.ts';
import { renderMountUnits } from '../core/mount-units.ts';
import { installGuardShims } from '../test-support/guard-shims.ts';
import { copyTree } from './copy.ts';
import { formatDisk, mountByUuid, mountedReadOnly, remount } from './disk-tools.ts';
import { metadataFiles, restoreMetadata, saveMetadata } from './metadata.ts';
import { installMountUnits, replaceMountUnits } from './mount-units.ts';
import { readBranches, setBranchMode } from './pool-control.ts';
import { settleSlot } from './settle.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const runner = createCommandRunner();

let root: string;
const paths = () => createHostPaths({ root });

beforeAll(async () => {
  await requirePrerequisites({
    root: true,
    tools: [
      'getfacl',
      'setfacl',
      'getfattr',
      'setfattr',
      'rsync',
      'setpriv',
      'mergerfs',
      'losetup',
      'mkfs.xfs',
    ],
  });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'disk-job-tools-'));
});

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('metadata SnapRAID does not keep', () => {
  it('saves owners, modes (setgid too), ACLs and xattrs, and puts them back onto a bare copy of the tree', async () => {
    const src = path.join(root, 'meta-src');
    const dst = path.join(root, 'meta-dst');
    for (const d of [src, dst]) {
      await fs.mkdir(path.join(d, 'a dir', 'ü'), { recursive: true });
      await fs.writeFile(path.join(d, 'a dir', 'ü', 'x\\y'), 'x');
      await fs.writeFile(path.join(d, 'line\nbreak'), 'y');
      await fs.writeFile(path.join(d, '.snapraid.content'), 'content');
    }
    await fs.chown(path.join(src, 'a dir', 'ü', 'x\\y'), 1000, 1001);
    await fs.chmod(path.join(src, 'a dir', 'ü', 'x\\y'), 0o640);
    await fs.chmod(path.join(src, 'a dir'), 0o2750);
    await fs.chmod(path.join(src, 'line\nbreak'), 0o600);
    await run('setfacl', ['-m', 'u:1005:rw', path.join(src, 'line\nbreak')]);
    await run('setfattr', ['-n', 'user.tag', '-v', 'two\nlines', path.join(src, 'a dir', 'ü', 'x\\y')]);
    const files = metadataFiles(paths(), 'd7');
    expect(files.acl).toBe(path.join(root, 'var/lib/appliance/metadata/d7.facl.gz'));
    const saved = await saveMetadata(runner, { dir: src, files });
    expect(saved.entries).toBe(5); // ., a dir, a dir/ü, its file, line\nbreak (not the content file)

    await fs.rm(path.join(dst, '.snapraid.content'));
    await fs.writeFile(path.join(dst, 'extra-not-in-metadata'), 'z');
    await fs.rm(path.join(dst, 'line\nbreak'));
    const r = await restoreMetadata(runner, { dir: dst, files });
    expect(r).toEqual({ saved: true, missing: 1, errors: [] }); // the file that was not rebuilt
    const st = await fs.stat(path.join(dst, 'a dir', 'ü', 'x\\y'));
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([1000, 1001, 0o640]);
    expect((await fs.stat(path.join(dst, 'a dir'))).mode & 0o7777).toBe(0o2750);
    const x = await run('getfattr', [
      '--only-values',
      '-n',
      'user.tag',
      path.join(dst, 'a dir', 'ü', 'x\\y'),
    ]);
    expect(x.stdout).toBe('two\nlines');
    // nothing saved for a disk: nothing restored, said so
    expect(await restoreMetadata(runner, { dir: dst, files: metadataFiles(paths(), 'd9') })).toEqual({
      saved: false,
      missing: 0,
      errors: [],
    });
  });
});

describe('copyTree (rsync -aHAX)', () => {
  it('copies hard links, symlinks, owners and times with progress; a cancel stops it', async () => {
    const src = path.join(root, 'copy-src');
    const dst = path.join(root, 'copy-dst');
    await fs.mkdir(path.join(src, 'd'), { recursive: true });
    const big = randomBytes(24 * MiB);
    await fs.writeFile(path.join(src, 'd', 'big'), big);
    await fs.link(path.join(src, 'd', 'big'), path.join(src, 'hard'));
    await fs.symlink('d/big', path.join(src, 'soft'));
    await fs.chown(path.join(src, 'd', 'big'), 4242, 4243);
    await fs.utimes(
      path.join(src, 'd', 'big'),
      new Date('2001-02-03T04:05:06Z'),
      new Date('2001-02-03T04:05:06Z'),
    );
    const seen: number[] = [];
    const r = await copyTree(runner, { from: src, to: dst }, { onProgress: (p) => seen.push(p.percent) });
    expect([r.exitCode, r.cancelled, r.errorLine]).toEqual([0, false, null]);
    expect(r.progress).toMatchObject({ percent: 100, bytesDone: 24 * MiB });
    expect(seen.length).toBeGreaterThan(0);
    const [a, b] = await Promise.all([fs.stat(path.join(dst, 'd', 'big')), fs.stat(path.join(dst, 'hard'))]);
    expect(a.ino).toBe(b.ino);
    expect([a.uid, a.gid, a.mtime.toISOString()]).toEqual([4242, 4243, '2001-02-03T04:05:06.000Z']);
    expect(await fs.readlink(path.join(dst, 'soft'))).toBe('d/big');
    expect(
      createHash('sha256')
        .update(await fs.readFile(path.join(dst, 'hard')))
        .digest('hex'),
    ).toBe(createHash('sha256').update(big).digest('hex'));

    // cancelled: stops, says so
    const slow = createCommandRunner({ path: path.join(root, 'slow') + ':/usr/sbin:/usr/bin:/sbin:/bin' });
    await fs.mkdir(path.join(root, 'slow'), { recursive: true });
    await fs.writeFile(
      path.join(root, 'slow', 'rsync'),
      '#!/bin/sh\nexec /usr/bin/rsync --bwlimit=1000 "$@"\n',
      {
        mode: 0o755,
      },
    );
    const controller = new AbortController();
    const c = await copyTree(
      slow,
      { from: src, to: path.join(root, 'copy-cancel') },
      { signal: controller.signal, onProgress: (p) => p.bytesDone > 0 && controller.abort() },
    );
    expect(c.cancelled).toBe(true);
    expect(c.errorLine).toBeNull();
    // a source that is not there: rsync's own error line
    const bad = await copyTree(runner, { from: path.join(root, 'nowhere'), to: dst });
    expect(bad.errorLine).toMatch(/^rsync/);
  }, 120_000);
});

describe('the pool’s branch modes (a real mergerfs)', () => {
  it('sets the slot’s branch RO and back; a path that is not a branch changes nothing', async () => {
    for (const d of ['mnt/disk1', 'mnt/disk2', 'mnt/user'])
      await fs.mkdir(path.join(root, d), { recursive: true });
    const p = paths();
    expect(await readBranches(runner, p)).toBeNull(); // no pool
    await run('mergerfs', [
      '-o',
      'category.create=mfs,minfreespace=1M,fsname=test-pool',
      `${p.real('/mnt/disk1')}:${p.real('/mnt/disk2')}`,
      p.userPool,
    ]);
    try {
      expect(await setBranchMode(runner, p, '/mnt/disk2', 'RO')).toBe('RW');
      expect(await readBranches(runner, p)).toBe(`${p.real('/mnt/disk1')}=RW:${p.real('/mnt/disk2')}=RO`);
      for (let i = 0; i < 4; i++) await fs.writeFile(path.join(p.userPool, `new${i}`), 'x');
      expect(await fs.readdir(p.real('/mnt/disk2'))).toEqual([]); // nothing created on the RO branch
      expect(await setBranchMode(runner, p, '/mnt/disk3', 'RO')).toBeNull();
      expect(await setBranchMode(runner, p, '/mnt/disk2', 'RW')).toBe('RO');
      expect(await readBranches(runner, p)).toBe(`${p.real('/mnt/disk1')}=RW:${p.real('/mnt/disk2')}=RW`);
    } finally {
      await run('umount', [p.userPool]);
    }
  });
});

describe('settleSlot on loop devices', () => {
  const disks: LoopDisk[] = [];
  afterAll(async () => {
    for (const t of ['/mnt/disk5', '/mnt/.staging/disk5'])
      await run('umount', [paths().real(t)]).catch(() => undefined);
    for (const d of disks) await d.destroy();
  });

  it('puts the slot on one disk: the other unmounted from every job path, the kept one read-write', async () => {
    const imageDir = path.join(root, 'images');
    await fs.mkdir(imageDir, { recursive: true });
    const guarded = createCommandRunner({
      path: await installGuardShims(path.join(root, 'shims'), imageDir),
    });
    const old = await createLoopDisk({ sizeBytes: 320 * MiB, imageDir });
    const neu = await createLoopDisk({ sizeBytes: 320 * MiB, imageDir });
    disks.push(old, neu);
    const oldUuid = '11111111-1111-4111-8111-111111111111';
    const newUuid = '22222222-2222-4222-8222-222222222222';
    await formatDisk(guarded, { device: old.device, filesystem: 'xfs', label: 'disk5', uuid: oldUuid });
    await formatDisk(guarded, { device: neu.device, filesystem: 'xfs', label: 'disk5', uuid: newUuid });
    const p = paths();
    // mid-upgrade: the old disk read-only at the slot, the new one at the staging path
    await mountByUuid(guarded, p, { uuid: oldUuid, logical: '/mnt/disk5', device: old.device });
    await remount(guarded, p.real('/mnt/disk5'), 'ro');
    await mountByUuid(guarded, p, { uuid: newUuid, logical: '/mnt/.staging/disk5', device: neu.device });
    const params: DiskJobParams = {
      kind: 'upgrade_data',
      role: 'data',
      roleIndex: 5,
      mountpoint: '/mnt/disk5',
      targetMountpoint: '/mnt/disk5',
      device: neu.device,
      byIdName: null,
      filesystem: 'xfs',
      label: 'disk5',
      previousDevice: old.device,
      previousFsUuid: oldUuid,
      newFsUuid: newUuid,
    };
    const inventory = () =>
      createInventoryReader({ paths: p, runner, lab: { enabled: true, imageDir } }).read();
    const where = async (d: LoopDisk) =>
      (await run('findmnt', ['-rn', '-o', 'TARGET', '-S', d.device]).catch(() => ({ stdout: '' }))).stdout
        .trim()
        .split('\n')
        .filter(Boolean);

    const back = await settleSlot(guarded, p, await inventory(), settlement(params, 'old'));
    expect(back.kept).toBe(true);
    expect(await where(old)).toEqual([p.real('/mnt/disk5')]);
    expect(await where(neu)).toEqual([]);
    expect(await mountedReadOnly(guarded, p.real('/mnt/disk5'))).toBe(false);
    // idempotent
    expect((await settleSlot(guarded, p, await inventory(), settlement(params, 'old'))).unmounted).toEqual(
      [],
    );

    // after the switch: the new disk at the slot, the old one nowhere
    const forward = await settleSlot(guarded, p, await inventory(), settlement(params, 'new'));
    expect(forward.kept).toBe(true);
    expect(await where(neu)).toEqual([p.real('/mnt/disk5')]);
    expect(await where(old)).toEqual([]);
  }, 180_000);
});

describe('replaceMountUnits', () => {
  it('installs the new set and removes only the units the old set alone had (own files only)', async () => {
    const unitDir = path.join(root, 'units');
    await fs.mkdir(unitDir);
    const slot = (mountpoint: string, fsUuid: string) => ({
      role: 'parity' as const,
      roleIndex: 1,
      mountpoint,
      fsUuid,
      filesystem: 'xfs' as const,
    });
    const data = {
      role: 'data' as const,
      roleIndex: 1,
      mountpoint: '/mnt/disk1',
      fsUuid: '33333333-3333-4333-8333-333333333333',
      filesystem: 'xfs' as const,
    };
    const before = renderMountUnits([slot('/mnt/parity1', '11111111-1111-4111-8111-111111111111'), data], {
      pool: null,
    });
    const after = renderMountUnits([slot('/mnt/parity2', '22222222-2222-4222-8222-222222222222'), data], {
      pool: null,
    });
    const deps = { runner, unitDir, systemdRunDir: path.join(root, 'no-systemd') };
    await installMountUnits(before, deps);
    await fs.writeFile(path.join(unitDir, 'someone-else.mount'), '[Mount]\n');
    await replaceMountUnits(before, after, deps);
    const names = (await fs.readdir(unitDir)).sort();
    expect(names).toContain('mnt-parity2.mount');
    expect(names).toContain('mnt-disk1.mount');
    expect(names).toContain('someone-else.mount');
    expect(names).not.toContain('mnt-parity1.mount');
    expect(names.filter((n) => n.includes('1111'))).toEqual([]); // the old parity disk's drop-in directory is gone
  });
});
