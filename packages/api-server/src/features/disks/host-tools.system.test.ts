/**
 * Issue 25, unsafe item 1: the tool check and the command runner once looked for `mkfs.*` in
 * different places. The check passed (the tool was in /usr/sbin), `wipefs` ran, then the runner did
 * not find `mkfs.exfat` on the service's PATH: 500 on an erased disk. Now "is the tool there" is the
 * runner's own lookup. Here the tool exists on this machine (and on the test's own PATH) but not on
 * the runner's PATH: a format and an array setup answer 501 and no disk is written.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCommandRunner } from '@appliance/common';
import { FORMAT_LAB_TOOLS } from '@appliance/external-disk/testing';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const SYSTEM_DIRS = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];

let labDir: string;
let s: Sandbox;
const disks: LoopDisk[] = [];
const ran: string[] = [];

/** A directory of links to every executable of the system directories but `without`. */
async function systemPathWithout(dir: string, without: readonly string[]): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const seen = new Set<string>(without);
  for (const sys of SYSTEM_DIRS) {
    const real = await fs.realpath(sys);
    for (const name of await fs.readdir(real)) {
      if (seen.has(name)) continue;
      seen.add(name);
      await fs.symlink(path.join(real, name), path.join(dir, name));
    }
  }
  return dir;
}

const firstMiB = async (device: string) =>
  (await run('sh', ['-c', `head -c ${MiB} ${device} | sha256sum`])).stdout.split(' ')[0];

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: [...FORMAT_LAB_TOOLS, 'mkfs.exfat', 'mkfs.btrfs'] });
  labDir = await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-host-tools-'));
  const bin = await systemPathWithout(path.join(labDir, 'bin'), ['mkfs.exfat', 'mkfs.btrfs']);
  const inner = createCommandRunner({ path: bin });
  s = await startSandbox({
    lab: true,
    config: { lab: { enabled: true, imageDir: labDir } },
    start: {
      runner: {
        resolve: (c) => inner.resolve(c),
        run: (c, args, o) => {
          ran.push([c, ...args].join(' '));
          return inner.run(c, args, o);
        },
      },
    },
  });
  for (let i = 0; i < 3; i++) {
    const d = await createLoopDisk({ sizeBytes: 256 * MiB, imageDir: labDir, filesystem: 'ext4' });
    disks.push(d);
  }
}, 120_000);

afterAll(async () => {
  for (const d of disks) await d.destroy().catch(() => undefined);
  await s?.close();
  if (labDir) await fs.rm(labDir, { recursive: true, force: true });
});

const writers = () => ran.filter((c) => /^(wipefs|mkfs|blockdev|mount|parted|dd)\b/.test(c));

describe('a tool present on the machine but not on the runner PATH', () => {
  it('exists elsewhere (the old check would have passed)', async () => {
    await expect(fs.access('/usr/sbin/mkfs.exfat')).resolves.toBeUndefined();
    await expect(
      fs.access('/usr/bin/mkfs.btrfs').catch(() => fs.access('/usr/sbin/mkfs.btrfs')),
    ).resolves.toBeUndefined();
    expect(process.env['PATH']).toMatch(/(^|:)\/usr\/sbin(:|$)/);
  });

  it('format: 501 not_configured naming exfatprogs, the first MiB of the disk unchanged', async () => {
    const d = disks[0]!;
    const reg = await s.call('POST', '/disks/external', { device: d.device, label: 'hosttools' });
    expect(reg.status).toBe(201);
    const before = await firstMiB(d.device);
    ran.length = 0;
    const r = await s.call('POST', '/disks/external/hosttools/format', {
      filesystem: 'exfat',
      confirmation: `ERASE ${d.device}`,
    });
    expect([r.status, r.body.code, r.body.details?.tool, r.body.details?.package]).toEqual([
      501,
      'not_configured',
      'mkfs.exfat',
      'exfatprogs',
    ]);
    expect(r.body.message).toMatch(/apt-get install exfatprogs/);
    expect(writers()).toEqual([]);
    expect(await firstMiB(d.device)).toBe(before);
  });

  it('array setup: 501 not_configured naming btrfs-progs, no disk written', async () => {
    const [p, d1] = [disks[1]!, disks[2]!];
    const before = [await firstMiB(p.device), await firstMiB(d1.device)];
    const dump = s.dumpDatabase();
    ran.length = 0;
    const r = await s.call('POST', '/disks/array', {
      disks: [
        { device: p.device, role: 'parity' },
        { device: d1.device, role: 'data', filesystem: 'btrfs' },
      ],
      confirmation: `ERASE ${p.device}, ${d1.device}`,
    });
    expect([r.status, r.body.code, r.body.details?.tool, r.body.details?.package]).toEqual([
      501,
      'not_configured',
      'mkfs.btrfs',
      'btrfs-progs',
    ]);
    expect(writers()).toEqual([]);
    expect([await firstMiB(p.device), await firstMiB(d1.device)]).toEqual(before);
    expect(s.dumpDatabase()).toBe(dump);
  });
});
