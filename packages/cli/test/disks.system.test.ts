/**
 * The disk commands on real loop disks in lab mode, behind guard shims (nothing but this suite's
 * loop devices can be written): array create, upgrade-plan, share data delete of many files and
 * an external format, with the typed confirmation on a pseudo-terminal (right and wrong phrase,
 * nothing written on a wrong one), --confirm for scripts, the refusal without either, and the
 * progress lines fed by GET /events.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { erasePhrase } from '@appliance/common';
import { createGuardedRunner, FORMAT_LAB_TOOLS, type GuardedRunner } from '@appliance/external-disk/testing';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance, onTerminal } from './support.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

let labDir: string;
let guarded: GuardedRunner;
let s: Sandbox;
let parity: LoopDisk;
let data: LoopDisk;
let backup: LoopDisk;

const cli = (args: string[], options: Parameters<typeof appliance>[1] = {}) =>
  appliance([...args, '--socket', s.socket], options);
const tty = (args: string[], answer: string) =>
  onTerminal([...args, '--socket', s.socket], 'to confirm: ', answer);
const api = async (p: string) => (await s.call('GET', p, undefined, { via: 'unix' })).body;
const blkid = (device: string) =>
  run('blkid', ['-p', '-o', 'export', device]).then(
    (r) => r.stdout,
    () => 'nothing',
  );
const real = (logical: string) => path.join(s.root, logical);

/** `count` small files in 100 directories under `dir`. */
function fill(dir: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const sub = path.join(dir, `d${i % 100}`);
    if (i < 100) fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `f${i}`), 'x'.repeat(100));
  }
}

beforeAll(async () => {
  await requirePrerequisites({
    root: true,
    tools: [...FORMAT_LAB_TOOLS, 'mount', 'umount', 'findmnt', 'script'],
  });
  labDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'appliance-cli-lab-'));
  guarded = await createGuardedRunner(labDir);
  parity = await createLoopDisk({ sizeBytes: 512 * MiB, imageDir: labDir });
  data = await createLoopDisk({ sizeBytes: 512 * MiB, imageDir: labDir });
  backup = await createLoopDisk({ sizeBytes: 512 * MiB, imageDir: labDir, filesystem: 'ext4', label: 'old' });
  s = await startSandbox({
    lab: true,
    config: { lab: { enabled: true, imageDir: labDir }, logLevel: 'silent' },
    start: { runner: guarded.runner },
  });
}, 120_000);

afterAll(async () => {
  const umount = (t: string) =>
    run('umount', [t]).catch(() => run('umount', ['-l', t]).catch(() => undefined));
  if (s) {
    for (const m of ['mnt/user', 'mnt/disk1', 'mnt/parity1']) await umount(real(m));
    await s.close();
  }
  for (const d of [parity, data, backup]) await d?.destroy().catch(() => undefined);
  await guarded?.cleanup();
  if (labDir) await fsp.rm(labDir, { recursive: true, force: true });
}, 120_000);

describe('disks list', () => {
  it('shows the loop disks with sizes and contents; --json is GET /disks', async () => {
    const r = await cli(['disks', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^DEVICE\s+SIZE\s+MODEL\s+CONTENTS\s+USE\n/);
    expect(r.stdout).toMatch(new RegExp(`${parity.device}\\s+512 MiB\\s+-\\s+blank\\s+free`));
    expect(r.stdout).toMatch(new RegExp(`${backup.device}\\s+512 MiB\\s+-\\s+ext4 "old"\\s+free`));
    expect(r.stdout).toContain('(lab mode');
    const json = JSON.parse((await cli(['disks', 'list', '--json'])).stdout);
    expect(json).toEqual(await api('/disks'));
    expect((await cli(['disks', 'lst'])).code).toBe(2);
  });
});

describe('array create', () => {
  const args = () => ['array', 'create', '--parity', parity.device, '--data', data.device];

  it('refuses without a terminal and without --confirm (exit 2), nothing formatted', async () => {
    const r = await cli(args());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--confirm "PHRASE"');
    expect(await blkid(parity.device)).toBe('nothing');
  });

  it('answers a wrong --confirm with the API refusal (exit 1), nothing formatted', async () => {
    const r = await cli([...args(), '--confirm', `ERASE ${parity.device}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^confirmation_required: .+\n$/);
    expect(await blkid(parity.device)).toBe('nothing');
    expect(await blkid(data.device)).toBe('nothing');
  });

  it('on a terminal shows what will be erased; a wrong phrase changes nothing', async () => {
    const r = await tty(args(), 'ERASE everything');
    expect(r.code).toBe(1);
    expect(r.screen).toContain('Setting up the array ERASES these disks:');
    expect(r.screen).toMatch(new RegExp(`${parity.device}\\s+512 MiB\\s+-\\s+-\\s+blank`));
    expect(r.screen).toContain(`Type "${erasePhrase([parity.device, data.device])}" to confirm:`);
    expect(r.screen).toContain('confirmation_required: The phrase typed is not');
    expect(await api('/disks/array')).toEqual({ configured: false, disks: [] });
    expect(await blkid(parity.device)).toBe('nothing');
  });

  it('on a terminal with the right phrase sets the array up', async () => {
    const r = await tty(args(), erasePhrase([parity.device, data.device]));
    expect(r.code).toBe(0);
    expect(r.screen).toContain('Array set up');
    const array = await api('/disks/array');
    expect(array.configured).toBe(true);
    expect(array.disks.map((d: { mountpoint: string }) => d.mountpoint)).toEqual([
      '/mnt/parity1',
      '/mnt/disk1',
    ]);
    expect(await blkid(data.device)).toContain('TYPE=xfs');
  });

  it('array show: the slots; --json is GET /disks/array; a second create is refused (1)', async () => {
    const r = await cli(['array', 'show']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`/mnt/disk1\\s+${data.device}\\s+xfs\\s+512 MiB\\s+yes`));
    expect(JSON.parse((await cli(['array', 'show', '--json'])).stdout)).toEqual(await api('/disks/array'));
    const again = await cli([...args(), '--confirm', erasePhrase([parity.device, data.device])]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^array_exists: /);
  });
});

describe('array upgrade-plan', () => {
  it('prints the plan; refuses an unknown slot (1); needs --device (2)', async () => {
    const r = await cli(['array', 'upgrade-plan', '--mountpoint', '/mnt/disk1', '--device', backup.device]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`confirmation: ERASE ${backup.device}\n`);
    expect(r.stdout).toMatch(/Steps:\n {2}1\. /);
    const json = await cli([
      'array',
      'upgrade-plan',
      '--mountpoint',
      '/mnt/disk1',
      '--device',
      backup.device,
      '--json',
    ]);
    expect(JSON.parse(json.stdout).replacementDevice).toBe(backup.device);
    const unknown = await cli([
      'array',
      'upgrade-plan',
      '--mountpoint',
      '/mnt/disk7',
      '--device',
      backup.device,
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^[a-z_]+: .+/);
    expect((await cli(['array', 'upgrade-plan', '--mountpoint', '/mnt/disk1'])).code).toBe(2);
    expect(await blkid(backup.device)).toContain('TYPE=ext4');
  });
});

describe('shares delete-data', () => {
  const branch = () => real('/mnt/disk1/media');

  it('dry run counts; no terminal without --confirm (2); wrong --confirm (1); nothing deleted', async () => {
    expect((await cli(['shares', 'create', 'media'])).code).toBe(0);
    fill(branch(), 30_000);
    const dry = await cli(['shares', 'delete-data', 'media', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/\/mnt\/disk1\s+\/mnt\/disk1\/media\s+30000\s+100\s+/);
    expect(dry.stdout).toContain('Would delete 30000 files, 100 directories');
    expect((await cli(['shares', 'delete-data', 'media'])).code).toBe(2);
    const wrong = await cli(['shares', 'delete-data', 'media', '--confirm', 'Media']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^confirmation_required: /);
    expect(fs.readdirSync(branch())).toHaveLength(100);
  });

  it('with --confirm deletes the files, with progress lines from GET /events while it runs', async () => {
    const seen: Array<{ at: number; line: string }> = [];
    let answered = 0;
    const r = await cli(['shares', 'delete-data', 'media', '--confirm', 'media'], {
      onStderr: (t) => {
        for (const line of t.split('\n').filter(Boolean)) seen.push({ at: Date.now(), line });
      },
    }).then((x) => {
      answered = Date.now();
      return x;
    });
    expect(r.code, r.stderr).toBe(0);
    const progress = seen.filter((l) => l.line.startsWith('share_data.delete media: '));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const p of progress)
      expect(p.line).toMatch(
        /^share_data\.delete media: \d+ files, \d+ directories, [\d.]+ (B|KiB|MiB) deleted, \d+s(, done)?$/,
      );
    expect(progress.at(-1)!.line).toMatch(/: 30000 files, 100 directories, .* deleted, \d+s, done$/);
    // lines arrived while the delete ran, before its answer
    expect(progress[0]!.at).toBeLessThan(answered);
    expect(progress[0]!.line).not.toContain('done');
    expect(r.stdout).toContain('Deleted 30000 files, 100 directories');
    expect(fs.readdirSync(branch())).toEqual([]);
  });

  it('on a terminal shows what will be deleted; the wrong phrase keeps the files, the right one deletes them', async () => {
    fill(branch(), 150);
    const wrong = await tty(['shares', 'delete-data', 'media'], 'Media');
    expect(wrong.code).toBe(1);
    expect(wrong.screen).toContain('This deletes every file of the share media on these disks');
    expect(wrong.screen).toMatch(/\/mnt\/disk1\s+\/mnt\/disk1\/media\s+150\s+100/);
    expect(wrong.screen).toContain('Type "media" to confirm:');
    expect(fs.readdirSync(branch())).toHaveLength(100);
    const right = await tty(['shares', 'delete-data', 'media'], 'media');
    expect(right.code).toBe(0);
    expect(right.screen).toContain('Deleted 150 files, 100 directories');
    expect(fs.readdirSync(branch())).toEqual([]);
  });

  it('Ctrl-C stops watching, not the delete, and says how to follow it again', async () => {
    fill(branch(), 30_000);
    let interrupted = false;
    const r = await cli(['shares', 'delete-data', 'media', '--confirm', 'media'], {
      onStderr: (text, child) => {
        if (!interrupted && text.includes('share_data.delete media: ')) {
          interrupted = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("Stopped watching; the delete of media's files goes on in the service.");
    expect(r.stderr).toContain('appliance events --progress');
    expect(r.stdout).toBe('');
    // the delete goes on and finishes in the service
    const end = Date.now() + 60_000;
    while (fs.readdirSync(branch()).length > 0 && Date.now() < end)
      await new Promise((x) => setTimeout(x, 200));
    expect(fs.readdirSync(branch())).toEqual([]);
    const audit = await cli(['audit', '--limit', '1', '--json']);
    // each poll starts the CLI (a second or more on a loaded machine): poll for long enough
    await expect
      .poll(
        async () => JSON.parse((await cli(['audit', '--limit', '1', '--json'])).stdout).entries[0].operation,
        { timeout: 60_000, interval: 200 },
      )
      .toBe('share_data.delete');
    expect(audit.code).toBe(0);
  });

  it('--json prints the delete report', async () => {
    fill(branch(), 3);
    const r = await cli(['shares', 'delete-data', 'media', '--confirm', 'media', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      share: 'media',
      dryRun: false,
      totals: { filesDeleted: 3, dirsDeleted: 3 },
    });
  });
});

describe('external disks', () => {
  it('list and register: success, taken label (1), missing --label (2)', async () => {
    const list = await cli(['external', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`\\(old\\)\\s+${backup.device}\\s+512 MiB\\s+-\\s+ext4 "old"\\s+candidate`),
    );
    const r = await cli(['external', 'register', backup.device, '--label', 'backup']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^label: +backup\n/);
    expect(r.stdout).toMatch(/\ncontents: +ext4 "old"\n/); // the filesystem's label, not the new one
    const again = await cli(['external', 'register', backup.device, '--label', 'backup']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^[a-z_]+: .+/);
    expect((await cli(['external', 'register', backup.device])).code).toBe(2);
    expect(JSON.parse((await cli(['external', 'list', '--json'])).stdout)).toEqual(
      await api('/disks/external'),
    );
  });

  it('format: refused without terminal or --confirm (2); a wrong phrase on a terminal writes nothing', async () => {
    const before = await blkid(backup.device);
    expect((await cli(['external', 'format', 'backup'])).code).toBe(2);
    const wrong = await tty(['external', 'format', 'backup'], 'ERASE /dev/sda');
    expect(wrong.code).toBe(1);
    expect(wrong.screen).toContain('Formatting backup as xfs ERASES this disk:');
    expect(wrong.screen).toMatch(new RegExp(`${backup.device}\\s+512 MiB\\s+-\\s+old\\s+ext4 "old"`));
    expect(wrong.screen).toContain(`Type "ERASE ${backup.device}" to confirm:`);
    expect(await blkid(backup.device)).toBe(before);
    expect(guarded.log.filter((c) => c.command === 'wipefs' && c.args.includes(backup.device))).toEqual([]);
  });

  it('format with --confirm: progress lines while it runs, then the new filesystem', async () => {
    await guarded.setFaults({ mkfsDelaySeconds: 1 });
    try {
      const r = await cli(['external', 'format', 'backup', '--confirm', `ERASE ${backup.device}`]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('disks.external.format backup: '));
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines[0]).toMatch(/^disks\.external\.format backup: step 1\/\d: wipefs, \d+s$/);
      expect(lines.at(-1)).toMatch(/: step (\d)\/\1: read_uuid, \d+s, done$/);
      expect(r.stdout).toMatch(
        new RegExp(`^Formatted backup \\(${backup.device}\\) as xfs; UUID [0-9a-f-]+\\.\\n$`),
      );
      expect(await blkid(backup.device)).toContain('LABEL=backup');
    } finally {
      await guarded.setFaults({});
    }
    const wrongFs = await cli(['external', 'format', 'backup', '--filesystem', 'ntfs', '--confirm', 'x']);
    expect(wrongFs.code).toBe(2);
  });
});
