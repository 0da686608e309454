/**
 * System tests of list / register / format against real loop devices, the real inventory reader
 * (lab mode, private image directory) and real mkfs. Writing tools run behind guard shims that
 * refuse any target but this suite's loop devices.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  AppError,
  createCommandRunner,
  createHostPaths,
  createInventoryReader,
  identityOf,
  systemClock,
  type InventoryReader,
} from '@appliance/common';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TryLocks } from '../keyed-lock.ts';
import type { ExternalDiskDeps } from '../ports.ts';
import {
  createGuardedRunner,
  type GuardedRunner,
  type GuardOptions,
  writes,
} from '../test-support/guard-shims.ts';
import {
  blkidExport,
  createPartitionedDisk,
  diskFingerprint as fingerprint,
  FORMAT_LAB_TOOLS,
  sha256File,
} from '../test-support/lab-disks.ts';
import { MemoryStore } from '../test-support/memory-store.ts';
import { formatExternal } from './format.ts';
import { listExternal } from './list.ts';
import { registerExternal } from './register.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

let labDir: string;
const disks: LoopDisk[] = [];
const runners: GuardedRunner[] = [];
const mounts: string[] = [];

const uniqueLabel = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 7)}`;

async function lab(options: GuardOptions = {}) {
  const guarded = await createGuardedRunner(labDir, options);
  runners.push(guarded);
  const store = new MemoryStore();
  const inventory: InventoryReader = createInventoryReader({
    paths: createHostPaths(),
    runner: guarded.runner,
    lab: { enabled: true, imageDir: labDir },
  });
  const deps: ExternalDiskDeps = {
    inventory,
    store,
    runner: guarded.runner,
    locks: new TryLocks(),
    clock: systemClock,
    log: { info: () => {}, warn: () => {}, error: () => {} },
    realpath: (p) => fs.realpath(p),
  };
  return { deps, store, log: guarded.log };
}

async function disk(options: Parameters<typeof createLoopDisk>[0] = {}): Promise<LoopDisk> {
  const d = await createLoopDisk({ sizeBytes: 512 * MiB, imageDir: labDir, ...options });
  disks.push(d);
  return d;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  if (outcome instanceof AppError) return outcome;
  throw outcome;
}

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: FORMAT_LAB_TOOLS });
  labDir = await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-extdisk-lab-'));
});

afterEach(async () => {
  for (const m of mounts.splice(0)) await run('umount', [m]).catch(() => undefined);
  for (const d of disks.splice(0)) await d.destroy().catch(() => undefined);
});

afterAll(async () => {
  for (const m of mounts.splice(0)) await run('umount', [m]).catch(() => undefined);
  for (const d of disks.splice(0)) await d.destroy().catch(() => undefined);
  for (const r of runners.splice(0)) await r.cleanup();
  if (labDir) await fs.rm(labDir, { recursive: true, force: true });
});

describe('format (07 §6) on real loop devices', () => {
  it('formats a candidate with each filesystem; blkid reports the type, label and the UUID answered', async () => {
    const { deps, store, log } = await lab();
    const label = uniqueLabel('bk');
    const d = await disk({ filesystem: 'ext4', label });
    for (const filesystem of ['xfs', 'ext4', 'btrfs', 'exfat'] as const) {
      const { disk: answer, mkfsMs } = await formatExternal(deps, {
        label,
        filesystem,
        confirmation: `ERASE ${d.device}`,
      });
      const probe = await blkidExport(d.device);
      expect(probe['TYPE']).toBe(filesystem);
      expect(probe['LABEL']).toBe(label);
      expect(answer).toMatchObject({
        label,
        registered: true,
        attached: true,
        mounted: false,
        device: d.device,
        boot: false,
        filesystem,
        fsLabel: label,
        fsUuid: probe['UUID'],
        partitions: [],
        mountpoint: `/mnt/disks/${label}`,
      });
      expect(answer.formattedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(mkfsMs).toBeGreaterThan(0);
    }
    // One row, registered by the first format and updated by the others; one audit row each.
    expect(store.rows).toHaveLength(1);
    expect(store.rows[0]).toMatchObject({ label, filesystem: 'exfat', device: d.device, weakIdentity: true });
    expect(store.audit.map((a) => [a.operation, a.target, a.outcome])).toEqual(
      Array(4).fill(['disks.external.format', label, 'ok']),
    );
    // The commands ran in the order of 07 §6.4, on the whole disk, never forced twice.
    const last = log.slice(log.findLastIndex((c) => c.command === 'wipefs'));
    expect(last.map((c) => [c.command, ...c.args].join(' '))).toEqual([
      `wipefs -a ${d.device}`,
      `mkfs.exfat -L ${label} ${d.device}`,
      `blkid -p -s UUID -o value ${d.device}`,
    ]);
  });

  it('wipes every partition, then the disk, before mkfs on the whole disk', async () => {
    const { deps, log } = await lab();
    const d = await createPartitionedDisk(labDir, [
      ['ext4', uniqueLabel('pa')],
      ['ext4', uniqueLabel('pb')],
    ]);
    disks.push(d);
    const label = (await blkidExport(`${d.device}p1`))['LABEL'] as string;
    const { disk: answer } = await formatExternal(deps, {
      label,
      confirmation: `ERASE ${d.device}`,
      filesystem: 'ext4',
    });
    expect(answer.filesystem).toBe('ext4');
    expect(writes(log).map((c) => [c.command, ...c.args].join(' '))).toEqual([
      `wipefs -a ${d.device}p2`,
      `wipefs -a ${d.device}p1`,
      `wipefs -a ${d.device}`,
      `blockdev --rereadpt ${d.device}`,
      `mkfs.ext4 -F -L ${label} ${d.device}`,
    ]);
    expect(await blkidExport(d.device)).toMatchObject({ TYPE: 'ext4', LABEL: label, UUID: answer.fsUuid });
    await expect(fs.stat(`${d.device}p1`)).rejects.toThrow();
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['yes', 'yes'],
    ['lower case', 'erase DEV'],
    ['trailing space', 'ERASE DEV '],
    ['another disk', 'ERASE /dev/sda'],
  ])('a %s confirmation → 409 confirmation_required; nothing written, no row, no audit', async (_, given) => {
    const { deps, store, log } = await lab();
    const label = uniqueLabel('cf');
    const d = await disk({ filesystem: 'ext4', label });
    const before = await fingerprint(d);
    const confirmation = typeof given === 'string' ? given.replace('DEV', d.device) : given;
    const err = await refusal(formatExternal(deps, { label, confirmation }));
    expect(err.status).toBe(409);
    expect(err.code).toBe('confirmation_required');
    expect(err.details).toEqual({ expected: `ERASE ${d.device}` });
    expect(await fingerprint(d)).toEqual(before);
    expect(store.rows).toEqual([]);
    expect(store.audit).toEqual([]);
    expect(writes(log)).toEqual([]);
  });

  describe('foreign boot sticks (07 §5) are refused whatever the confirmation, bytes unchanged', () => {
    const variants: Array<[string, (dir: string) => Promise<{ d: LoopDisk; label: string }>]> = [
      [
        'whole disk vfat UNRAID',
        async () => ({
          d: await disk({ sizeBytes: 64 * MiB, filesystem: 'vfat', label: 'UNRAID' }),
          label: 'UNRAID',
        }),
      ],
      [
        'whole disk vfat unraid (lower case)',
        async () => ({
          d: await disk({ sizeBytes: 64 * MiB, filesystem: 'vfat', label: 'unraid' }),
          label: 'unraid',
        }),
      ],
      [
        'first partition vfat UNRAID',
        async (dir) => {
          const d = await createPartitionedDisk(dir, [['vfat', 'UNRAID']]);
          disks.push(d);
          return { d, label: 'UNRAID' };
        },
      ],
      [
        'second partition ext4 UNRAID (requested as DATA)',
        async (dir) => {
          const d = await createPartitionedDisk(dir, [
            ['vfat', 'DATA'],
            ['ext4', 'UNRAID'],
          ]);
          disks.push(d);
          return { d, label: 'DATA' };
        },
      ],
    ];
    it.each(variants)('%s', async (_, make) => {
      const { deps, store, log } = await lab();
      const { d, label } = await make(labDir);
      const hash = await sha256File(d.image);
      const before = await fingerprint(d);
      for (const confirmation of [`ERASE ${d.device}`, 'wrong', undefined]) {
        const err = await refusal(formatExternal(deps, { label, confirmation }));
        expect(err.status).toBe(409);
        expect(err.code).toBe('foreign_stick');
        expect(err.details).toEqual({ device: d.device });
        expect(err.message).toContain('never formatted or written');
      }
      const reg = await refusal(registerExternal(deps, { device: d.device, label: 'stick' }));
      expect(reg.code).toBe('foreign_stick');
      expect((await listExternal(deps)).map((x) => x.device)).not.toContain(d.device);
      expect(await fingerprint(d)).toEqual(before);
      expect(await sha256File(d.image)).toBe(hash);
      expect(store.rows).toEqual([]);
      expect(writes(log)).toEqual([]);
    });
  });

  it('a mounted disk → 409 disk_mounted, untouched', async () => {
    const { deps, store, log } = await lab();
    const label = uniqueLabel('mt');
    const d = await disk({ filesystem: 'ext4', label });
    const target = await fs.mkdtemp(path.join(labDir, 'mnt-'));
    await run('mount', ['-o', 'ro', d.device, target]);
    mounts.push(target);
    const before = await blkidExport(d.device);
    const err = await refusal(formatExternal(deps, { label, confirmation: `ERASE ${d.device}` }));
    expect(err.code).toBe('disk_mounted');
    expect(err.details?.['mountpoints']).toEqual([target]);
    expect(await blkidExport(d.device)).toEqual(before);
    expect(store.audit).toEqual([]);
    expect(writes(log)).toEqual([]);
  });

  it('an array member → 409 array_member, untouched', async () => {
    const { deps, store, log } = await lab();
    const label = uniqueLabel('ar');
    const d = await disk({ filesystem: 'xfs', label });
    const entry = (await deps.inventory.read()).disks.find((x) => x.device === d.device)!;
    store.slots = [{ ...identityOf(entry), mountpoint: '/mnt/disk1' }];
    const before = await fingerprint(d);
    const err = await refusal(formatExternal(deps, { label, confirmation: `ERASE ${d.device}` }));
    expect(err.code).toBe('array_member');
    expect(err.details).toEqual({ device: d.device, mountpoint: '/mnt/disk1' });
    expect(await fingerprint(d)).toEqual(before);
    expect(writes(log)).toEqual([]);
  });

  it('a disk that becomes an array member between the checks and the write → 409 array_member, no wipefs', async () => {
    const { deps, store, log } = await lab();
    const label = uniqueLabel('rc');
    const d = await disk({ filesystem: 'ext4', label });
    const entry = (await deps.inventory.read()).disks.find((x) => x.device === d.device)!;
    let reads = 0;
    const racing: ExternalDiskDeps = {
      ...deps,
      store: Object.assign(Object.create(store) as MemoryStore, {
        listArraySlots: async () =>
          ++reads >= 2 ? [{ ...identityOf(entry), mountpoint: '/mnt/disk2' }] : [],
      }),
    };
    const before = await fingerprint(d);
    const err = await refusal(formatExternal(racing, { label, confirmation: `ERASE ${d.device}` }));
    expect(err.code).toBe('array_member');
    expect(reads).toBe(2);
    expect(await fingerprint(d)).toEqual(before);
    expect(writes(log)).toEqual([]);
  });

  it("the machine's real root disk is refused (register and format), never written", async () => {
    const { deps, store, log } = await lab();
    const { stdout } = await run('findmnt', ['-n', '-o', 'SOURCE', '/']);
    const source = stdout.trim();
    const inventory = await deps.inventory.read();
    const root = inventory.disks.find((x) => x.boot);
    if (root) {
      expect(source.startsWith(root.device)).toBe(true);
      // Register checks a failed probe (unmanaged_device) before boot_device (07 §4 order); in a
      // container the root disk often cannot be opened by blkid, so its probe fails.
      const reg = await refusal(registerExternal(deps, { device: root.device, label: 'sys' }));
      expect(reg.code).toBe(root.probeFailed ? 'unmanaged_device' : 'boot_device');
      // A row for its identity, inserted behind the API's back: still refused.
      store.rows.push({
        id: 99,
        label: 'sys',
        device: root.device,
        filesystem: root.filesystem,
        fsUuid: root.fsUuid,
        wwn: root.wwn,
        serial: root.serial,
        byIdName: root.byIdName,
        weakIdentity: root.weakIdentity,
        sizeBytes: root.sizeBytes,
        backupDestination: false,
        createdAt: new Date().toISOString(),
        formattedAt: null,
      });
      const err = await refusal(formatExternal(deps, { label: 'sys', confirmation: `ERASE ${root.device}` }));
      expect(err.status).toBe(409);
      expect(err.code).toBe('boot_device');
      expect(err.message).toContain('never formatted');
      expect((await listExternal(deps)).find((x) => x.label === 'sys')).toMatchObject({
        attached: false,
        device: null,
      });
    } else {
      // Lab mode with an unresolvable root (overlay): real disks are dropped from the inventory.
      expect(inventory.bootResolved).toBe(false);
      const device = source.replace(/p?\d+$/, '');
      const reg = await refusal(registerExternal(deps, { device, label: 'sys' }));
      expect(reg.code).toBe('unmanaged_device');
    }
    expect(store.audit).toEqual([]);
    expect(writes(log)).toEqual([]);
  });

  it('two concurrent formats of one disk → one succeeds, the other 409 disk_busy', async () => {
    const { deps, store } = await lab({ mkfsDelaySeconds: 1 });
    const label = uniqueLabel('cc');
    const d = await disk({ filesystem: 'ext4', label });
    const request = { label, confirmation: `ERASE ${d.device}`, filesystem: 'xfs' as const };
    const results = await Promise.allSettled([formatExternal(deps, request), formatExternal(deps, request)]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as AppError] : []));
    expect(ok).toHaveLength(1);
    expect(refused.map((e) => [e.status, e.code, e.details])).toEqual([
      [409, 'disk_busy', { device: d.device }],
    ]);
    expect(store.audit).toHaveLength(1);
    expect((await blkidExport(d.device))['TYPE']).toBe('xfs');
  });

  it('a failed UUID read-back → 500 format_failed step read_uuid; the row keeps the label and a retry works', async () => {
    const failing = await lab({ failUuidReadBack: true });
    const label = uniqueLabel('rb');
    const d = await disk({ filesystem: 'ext4', label });
    const err = await refusal(formatExternal(failing.deps, { label, confirmation: `ERASE ${d.device}` }));
    expect(err.status).toBe(500);
    expect(err.code).toBe('format_failed');
    expect(err.details).toEqual({ step: 'read_uuid', exitCode: 1 });
    expect(err.message).not.toContain('injected');
    expect(failing.store.rows).toMatchObject([{ label, filesystem: 'xfs', fsUuid: null, formattedAt: null }]);
    expect(failing.store.audit.map((a) => a.outcome)).toEqual(['failed']);
    // The disk now carries the label on xfs; the weak row without a UUID matches by device and size.
    const healthy = await lab();
    healthy.store.rows = failing.store.rows;
    const { disk: answer } = await formatExternal(healthy.deps, { label, confirmation: `ERASE ${d.device}` });
    expect(answer.fsUuid).toBe((await blkidExport(d.device))['UUID']);
    expect(healthy.store.rows).toHaveLength(1);
  });

  it('a tool that vanishes after the first wipefs → 500 format_failed (mkfs, exitCode null); attempt recorded', async () => {
    const { deps, store } = await lab();
    const label = uniqueLabel('vt');
    const d = await disk({ filesystem: 'ext4', label });
    const vanishing: ExternalDiskDeps = {
      ...deps,
      runner: {
        resolve: (command) => deps.runner.resolve(command),
        run: (command, args, options) =>
          command.startsWith('mkfs.')
            ? Promise.reject(new AppError(501, 'not_configured', `${command} is not installed`))
            : deps.runner.run(command, args, options),
      },
    };
    const err = await refusal(formatExternal(vanishing, { label, confirmation: `ERASE ${d.device}` }));
    expect([err.status, err.code, err.details]).toEqual([
      500,
      'format_failed',
      { step: 'mkfs', exitCode: null },
    ]);
    expect(store.rows).toMatchObject([{ label, filesystem: null, fsUuid: null, formattedAt: null }]);
    expect(store.audit.map((a) => [a.outcome, a.details['step']])).toEqual([['failed', 'mkfs']]);
    expect((await blkidExport(d.device))['TYPE']).toBeUndefined();
  });

  it('a path that no longer leads to the confirmed disk → 409 disk_changed, nothing written', async () => {
    const { deps, log } = await lab();
    const label = uniqueLabel('ch');
    const d = await disk({ filesystem: 'ext4', label });
    const before = await fingerprint(d);
    const moved: ExternalDiskDeps = { ...deps, realpath: async () => '/dev/loop999' };
    const err = await refusal(formatExternal(moved, { label, confirmation: `ERASE ${d.device}` }));
    expect(err.code).toBe('disk_changed');
    expect(await fingerprint(d)).toEqual(before);
    expect(writes(log)).toEqual([]);
  });

  it('label rules: too long for the filesystem → 400 label_too_long; bad labels → 400 bad_request', async () => {
    const { deps, log } = await lab();
    const label = `lt${'x'.repeat(11)}`;
    const d = await disk({ filesystem: 'ext4', label });
    const before = await fingerprint(d);
    const err = await refusal(formatExternal(deps, { label, confirmation: `ERASE ${d.device}` }));
    expect(err.code).toBe('label_too_long');
    expect(err.details).toEqual({ filesystem: 'xfs', maxLength: 12 });
    for (const bad of ['a/b', '..', 'a b', 'x'.repeat(65), 'bäckup', '-x', '']) {
      const e = await refusal(formatExternal(deps, { label: bad, confirmation: `ERASE ${d.device}` }));
      expect([e.status, e.code]).toEqual([400, 'bad_request']);
    }
    expect(await fingerprint(d)).toEqual(before);
    expect(writes(log)).toEqual([]);
  });

  it('a missing tool → 501 not_configured naming the Debian package', async () => {
    const { deps } = await lab();
    const bin = await fs.mkdtemp(path.join(labDir, 'bin-'));
    for (const tool of ['wipefs', 'blkid', 'blockdev'])
      await fs.symlink(`/usr/sbin/${tool}`, path.join(bin, tool));
    const err = await refusal(
      formatExternal(
        { ...deps, runner: createCommandRunner({ path: bin }) },
        { label: 'anything', filesystem: 'btrfs', confirmation: 'x' },
      ),
    );
    expect([err.status, err.code, err.details?.['package']]).toEqual([501, 'not_configured', 'btrfs-progs']);
  });
});

describe('list and register (07 §3, §4) on real loop devices', () => {
  it('lists a labelled candidate, registers it, then refuses a duplicate and a partition', async () => {
    const { deps, store } = await lab();
    const label = uniqueLabel('ls');
    const d = await disk({ filesystem: 'ext4', label });
    const listed = await listExternal(deps);
    expect(listed.find((x) => x.label === label)).toMatchObject({
      registered: false,
      attached: true,
      device: d.device,
      mountpoint: `/mnt/disks/${label}`,
      boot: false,
      filesystem: 'ext4',
      weakIdentity: true,
    });
    expect(listed.some((x) => x.boot || x.device === '/dev/vda')).toBe(false);
    const registered = await registerExternal(deps, {
      device: d.device,
      label: 'Archive',
      backupDestination: true,
    });
    expect(registered).toMatchObject({
      label: 'Archive',
      registered: true,
      attached: true,
      backupDestination: true,
    });
    expect(store.audit.map((a) => a.operation)).toEqual(['disks.external.register']);
    expect((await listExternal(deps)).map((x) => x.label)).toContain('Archive');
    expect((await listExternal(deps)).map((x) => x.label)).not.toContain(label);
    expect((await refusal(registerExternal(deps, { device: d.device, label: 'other' }))).details).toEqual({
      label: 'Archive',
    });
    expect((await refusal(registerExternal(deps, { device: d.device, label: 'ARCHIVE' }))).code).toBe(
      'external_disk_exists',
    );
    const p = await createPartitionedDisk(labDir, [['ext4', uniqueLabel('pp')]]);
    disks.push(p);
    const part = await refusal(registerExternal(deps, { device: `${p.device}p1`, label: 'part' }));
    expect([part.status, part.code]).toEqual([400, 'unmanaged_device']);
    expect(store.rows).toHaveLength(1);
  });
});
