/**
 * Bare metal on a fresh install, with real loop disks in lab mode and the real inventory reader
 * (scenarios 8 and 9): matched, absent, replaced and ambiguous, and a diskMapping of the matched
 * disks only.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  createCommandRunner,
  createHostPaths,
  createInventoryReader,
  type InventoryReader,
} from '@appliance/common';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedPreview } from '../test-support/checked.ts';
import { createSandbox, type Sandbox } from '../test-support/sandbox.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

describe('bare metal with loop disks in lab mode', () => {
  let imageDir: string;
  const disks: LoopDisk[] = [];
  let clone: { device: string; image: string } | null = null;
  let inventory: InventoryReader;
  const sandboxes: Sandbox[] = [];
  const uuid = async (device: string) =>
    (await run('blkid', ['-p', '-s', 'UUID', '-o', 'value', device])).stdout.trim();

  beforeAll(async () => {
    await requirePrerequisites({ root: true, tools: ['losetup', 'mkfs.xfs', 'blkid', 'cp'] });
    imageDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bare-metal-lab-'));
    disks.push(await createLoopDisk({ sizeBytes: 300 * MiB, filesystem: 'xfs', imageDir })); // parity
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, filesystem: 'xfs', imageDir })); // data 1
    disks.push(await createLoopDisk({ sizeBytes: 340 * MiB, filesystem: 'xfs', imageDir })); // data 2 (cloned)
    const original = disks[2] as LoopDisk;
    const image = path.join(imageDir, 'clone.img');
    await run('cp', ['--sparse=always', original.image, image]);
    const device = (await run('losetup', ['-f', '--show', image])).stdout.trim();
    clone = { device, image };
    inventory = createInventoryReader({
      paths: createHostPaths(),
      runner: createCommandRunner(),
      lab: { enabled: true, imageDir },
    });
  }, 120_000);

  afterAll(async () => {
    for (const s of sandboxes) s.close();
    if (clone) await run('losetup', ['-d', clone.device]).catch(() => undefined);
    for (const d of disks) await d.destroy();
    if (imageDir) await fs.rm(imageDir, { recursive: true, force: true });
  });

  /** An archive from an installation whose array recorded these rows, previewed on a fresh box. */
  async function previewFresh(
    rows: {
      role: string;
      index: number;
      uuid: string;
      size: number | null;
      mountpoint: string;
      wwn?: string;
    }[],
  ) {
    const source = createSandbox({ array: false });
    const fresh = createSandbox({ array: false, key: source.key });
    sandboxes.push(source, fresh);
    const insert = source.db.prepare(
      "INSERT INTO array_disks (role, role_index, device, filesystem, fs_uuid, wwn, weak_identity, size_bytes, mountpoint) VALUES (?, ?, '/dev/loop99', 'xfs', ?, ?, ?, ?, ?)",
    );
    for (const r of rows)
      insert.run(r.role, r.index, r.uuid, r.wwn ?? null, r.wwn ? 0 : 1, r.size, r.mountpoint);
    const archive = await source.exportArchive();
    return checkedPreview(fresh, archive, undefined, { inventory });
  }

  it('matches the archived disks attached on new device names (scenario 8)', async () => {
    const [p, d1] = disks as [LoopDisk, LoopDisk];
    const { response: r, error } = await previewFresh([
      { role: 'parity', index: 1, uuid: await uuid(p.device), size: 300 * MiB, mountpoint: '/mnt/parity1' },
      { role: 'data', index: 1, uuid: await uuid(d1.device), size: null, mountpoint: '/mnt/disk1' },
    ]);
    expect(error).toBeUndefined();
    expect(r?.blockers).toEqual([]);
    expect(r?.bareMetal?.schemaUpgrade).toBe(false);
    expect(r?.bareMetal?.disks.map((d) => [d.name, d.state, d.device, d.weakIdentity])).toEqual([
      [`parity disk 1 (/mnt/parity1, filesystem ${await uuid(p.device)})`, 'matched', p.device, true],
      [`data disk 1 (/mnt/disk1, filesystem ${await uuid(d1.device)})`, 'matched', d1.device, true],
    ]);
    expect(r?.bareMetal?.diskMapping).toEqual({
      disks: [
        { role: 'parity', roleIndex: 1, device: p.device },
        { role: 'data', roleIndex: 1, device: d1.device },
      ],
    });
    expect(r?.notes.map((n) => n.code)).toEqual(['tokens_replaced']);
  });

  it('reports absent, replaced and ambiguous disks, maps none of them, and notes the degraded array (scenario 9)', async () => {
    const [, d1, d2] = disks as [LoopDisk, LoopDisk, LoopDisk];
    const { response: r } = await previewFresh([
      // Parity: its filesystem is on no attached disk.
      {
        role: 'parity',
        index: 1,
        uuid: '6a1c9a4e-0000-4000-8000-000000000001',
        size: 300 * MiB,
        mountpoint: '/mnt/parity1',
      },
      // Data 1: its filesystem now lives on a disk of another size (copied to a new disk).
      { role: 'data', index: 1, uuid: await uuid(d1.device), size: 200 * MiB, mountpoint: '/mnt/disk1' },
      // Data 2: attached twice (the disk and its clone).
      { role: 'data', index: 2, uuid: await uuid(d2.device), size: 340 * MiB, mountpoint: '/mnt/disk2' },
    ]);
    expect(r?.bareMetal?.disks.map((d) => [d.role, d.roleIndex, d.state, d.device])).toEqual([
      ['parity', 1, 'absent', undefined],
      ['data', 1, 'replaced', d1.device],
      ['data', 2, 'ambiguous', undefined],
    ]);
    expect(r?.bareMetal?.diskMapping.disks).toEqual([]);
    expect(r?.notes.map((n) => n.code)).toEqual(['tokens_replaced', 'array_degraded']);
  });

  it('a weak disk carrying the filesystem of a disk recorded with a WWN is replaced and left out of the mapping', async () => {
    const [p, d1] = disks as [LoopDisk, LoopDisk];
    const { response: r } = await previewFresh([
      { role: 'parity', index: 1, uuid: await uuid(p.device), size: 300 * MiB, mountpoint: '/mnt/parity1' },
      // Recorded on a SATA disk with a WWN; the loop disk has the same filesystem and size, no WWN.
      {
        role: 'data',
        index: 1,
        uuid: await uuid(d1.device),
        size: 320 * MiB,
        mountpoint: '/mnt/disk1',
        wwn: '0x5000c500a1b2c3d4',
      },
    ]);
    expect(r?.bareMetal?.disks.map((d) => [d.role, d.state, d.device, d.wwn])).toEqual([
      ['parity', 'matched', p.device, undefined],
      ['data', 'replaced', d1.device, '0x5000c500a1b2c3d4'],
    ]);
    expect(r?.bareMetal?.diskMapping.disks).toEqual([{ role: 'parity', roleIndex: 1, device: p.device }]);
    expect(r?.notes.map((n) => n.code)).toEqual(['tokens_replaced', 'array_degraded']);
  });
});
