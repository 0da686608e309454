/**
 * The backup commands as an operator types them, on a real array (loop disks, lab mode) with a
 * loop backup disk and real restic: mount and eject, a plan, a run with its progress lines, the
 * snapshots, a restore into place (typed confirmation) and into a folder, the configuration of a
 * snapshot written for the import, and a drill; each --json equal to the API's answer.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createLabArray, type LabArray, writeFiles } from '@appliance/api-server/testing';
import { erasePhrase } from '@appliance/common';
import { createLoopDisk, type LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance } from './support.ts';

const MiB = 1024 * 1024;
let lab: LabArray;
let disk: LoopDisk;
const cli = (args: string[]) => appliance([...args, '--socket', lab.s.socket], { timeoutMs: 300_000 });
const api = async (p: string) => (await lab.s.call('GET', p, undefined, { via: 'unix' })).body;
const sha = async (f: string) =>
  createHash('sha256')
    .update(await fs.readFile(f))
    .digest('hex');

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 1, paritySizeMiB: 600, dataSizeMiB: 512 });
  disk = await createLoopDisk({ sizeBytes: 1024 * MiB, imageDir: lab.imageDir });
  const ok = (r: { status: number; text: string }, status: number) => expect(r.status, r.text).toBe(status);
  ok(
    await lab.s.call('PUT', '/settings', {
      hostname: 'nas',
      timezone: 'UTC',
      backupPassphrase: 'a long backup passphrase',
    }),
    200,
  );
  ok(
    await lab.s.call('POST', '/disks/external', {
      device: disk.device,
      label: 'usb',
      backupDestination: true,
    }),
    201,
  );
  ok(
    await lab.s.call('POST', '/disks/external/usb/format', { confirmation: erasePhrase([disk.device]) }),
    200,
  );
  ok(await lab.s.call('POST', '/shares', { name: 'docs' }), 201);
  await writeFiles(lab.real('/mnt/user/docs'), 200, (i) => 30_000 + i * 311);
  await fs.mkdir(lab.real('/mnt/user/docs/letters'), { recursive: true });
  await fs.writeFile(lab.real('/mnt/user/docs/letters/a.txt'), randomBytes(10_000));
}, 300_000);

afterAll(async () => {
  await lab?.destroy();
  await disk?.destroy().catch(() => undefined);
}, 120_000);

describe('appliance backups and appliance external mount|eject', () => {
  it('external mount and eject', async () => {
    const m = await cli(['external', 'mount', 'usb']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toBe('Mounted usb at /mnt/disks/usb.\n');
    const e = await cli(['external', 'eject', 'usb']);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toMatch(/^Unmounted; not powered down: a loop device/);
  });

  it('plans create, list and show; bad options are usage errors (exit 2)', async () => {
    expect(
      (await cli(['backups', 'plans', 'create', 'p', '--destination', 'usb', '--share', 'docs'])).code,
    ).toBe(2);
    const c = await cli([
      'backups',
      'plans',
      'create',
      'nightly',
      '--destination',
      'usb',
      '--configuration',
      '--share',
      'docs',
      '--daily',
      '03:30',
      '--keep-daily',
      '5',
    ]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/^Created plan nightly\./);
    expect(c.stdout).toMatch(/backs up:\s+configuration, share docs/);
    expect(c.stdout).toMatch(/keeps:\s+5 daily, 4 weekly, 6 monthly/);
    const list = await cli(['backups', 'plans']);
    expect(list.stdout).toMatch(/nightly\s+usb\s+daily at 03:30\s+never\s+never/);
    const j = await cli(['backups', 'plans', '--json']);
    expect(JSON.parse(j.stdout)).toEqual(await api('/backups/plans'));
  });

  it('run: progress lines with files, bytes and rate on stderr, then the parts', async () => {
    const r = await cli(['backups', 'run', 'nightly']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/backup\.run nightly: share docs \(2\/2\)/);
    expect(r.stderr).toMatch(/backup\.run nightly: .*succeeded/);
    expect(r.stdout).toMatch(/configuration\s+ok/);
    expect(r.stdout).toMatch(/share docs\s+ok/);
    expect(r.stdout).toMatch(/Backed up plan nightly\./);
  }, 300_000);

  it('plans: the state column says a plan whose last run failed, not "ok"', async () => {
    expect((await lab.s.call('POST', '/shares', { name: 'gone' }, { via: 'unix' })).status).toBe(201);
    const c = await cli([
      'backups',
      'plans',
      'create',
      'broken',
      '--destination',
      'usb',
      '--share',
      'gone',
      '--daily',
      '04:00',
    ]);
    expect(c.code, c.stderr).toBe(0);
    await fs.rm(lab.real('/mnt/user/gone'), { recursive: true, force: true });
    const r = await cli(['backups', 'run', 'broken']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/share gone/);
    const list = await cli(['backups', 'plans']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/broken\s+usb\s+daily at 04:00\s+.*, failed\s+never\s+.*LAST RUN FAILED\n/);
    expect(list.stdout).toMatch(/nightly\s+usb\s+.*, succeeded\s+.*\s+ok\n/);
    const d = await cli(['backups', 'plans', 'delete', 'broken', '--confirm', 'DELETE broken']);
    expect(d.code, d.stderr).toBe(0);
  }, 300_000);

  it('snapshots: a table, and --json as the API answers', async () => {
    const r = await cli(['backups', 'snapshots', 'nightly']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/SNAPSHOT\s+TIME\s+HOLDS\s+SIZE/);
    expect(r.stdout).toMatch(/share docs/);
    expect(r.stdout).toMatch(/configuration/);
    const j = JSON.parse((await cli(['backups', 'snapshots', 'nightly', '--json'])).stdout);
    expect(j).toEqual(await api('/backups/snapshots?plan=nightly'));
  }, 120_000);

  it('restore into place needs the phrase; into a folder does not; the configuration comes out for the import', async () => {
    const snaps = (await api('/backups/snapshots?plan=nightly')).snapshots as {
      shortId: string;
      part: { kind: string };
    }[];
    const shareSnap = snaps.find((s) => s.part.kind === 'share')!.shortId;
    const configSnap = snaps.find((s) => s.part.kind === 'config')!.shortId;
    const before = await sha(lab.real('/mnt/user/docs/letters/a.txt'));
    await fs.rm(lab.real('/mnt/user/docs/letters'), { recursive: true });
    const noPhrase = await cli([
      'backups',
      'restore',
      'nightly',
      shareSnap,
      '--share',
      'docs',
      '--path',
      'letters',
    ]);
    expect(noPhrase.code).toBe(2);
    const r = await cli([
      'backups',
      'restore',
      'nightly',
      shareSnap,
      '--share',
      'docs',
      '--path',
      'letters',
      '--confirm',
      'RESTORE share docs',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Restored letters into /mnt/user/docs.\n');
    expect(await sha(lab.real('/mnt/user/docs/letters/a.txt'))).toBe(before);
    const into = await cli([
      'backups',
      'restore',
      'nightly',
      shareSnap,
      '--share',
      'docs',
      '--into',
      '/mnt/user/docs/copy',
    ]);
    expect(into.code, into.stderr).toBe(0);
    expect(await sha(lab.real('/mnt/user/docs/copy/letters/a.txt'))).toBe(before);
    const out = path.join(lab.work, 'config.tar.zst');
    const c = await cli(['backups', 'restore', 'nightly', configSnap, '--configuration', '--output', out]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain(`appliance config import ${out}`);
    const preview = await cli(['config', 'preview', out]);
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toMatch(/archive of:\s+nas/);
  }, 300_000);

  it('drill: passes, naming what it restored', async () => {
    const r = await cli(['backups', 'drill', 'nightly']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/check \(data subset 1\/10\): passed/);
    expect(r.stdout).toMatch(/share docs\s+\w+\s+\d+\s+.*identical, verified/);
    expect(r.stdout).toMatch(/The drill of nightly passed\./);
  }, 300_000);

  it('plans update and delete (typed confirmation)', async () => {
    const u = await cli(['backups', 'plans', 'update', 'nightly', '--weekly', 'sun@04:00', '--no-drill']);
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toMatch(/when:\s+weekly on sunday at 04:00/);
    expect(u.stdout).toMatch(/drills:\s+off/);
    expect(u.stdout).toMatch(/next drill:\s+off\n/);
    expect(u.stdout).toMatch(/password:\s+known \(sealed on this box/);
    expect((await cli(['backups', 'plans', 'delete', 'nightly'])).code).toBe(2);
    const d = await cli(['backups', 'plans', 'delete', 'nightly', '--confirm', 'DELETE nightly']);
    expect(d.code, d.stderr).toBe(0);
    expect((await api('/backups/plans')).plans).toEqual([]);
  });
});
