/**
 * `appliance array replace` and `appliance array upgrade` as an operator runs them (issue 21), on
 * a real array (loop disks in lab mode, real snapraid, rsync and mkfs): a destroyed disk rebuilt
 * from a terminal (the plan, the typed phrase, the progress bar, what came back), the refusals
 * (no terminal and no --confirm: 2; a wrong phrase: 1, nothing written), and a data upgrade with
 * --confirm from a script (progress lines on stderr).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLabArray, type LabArray, writeFiles } from '@appliance/api-server/testing';
import { createLoopDisk, type LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance, onTerminal } from './support.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

let lab: LabArray;
let files: Map<string, string>;
const extra: LoopDisk[] = [];
const cli = (args: string[]) => appliance([...args, '--socket', lab.s.socket], { timeoutMs: 600_000 });
const tty = (args: string[], answer: string) =>
  onTerminal([...args, '--socket', lab.s.socket], 'to confirm: ', answer);
const blkid = (device: string) =>
  run('blkid', ['-p', '-o', 'export', device]).then(
    (r) => r.stdout,
    () => 'nothing',
  );
const sha = async (file: string) =>
  createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 3, paritySizeMiB: 1024, dataSizeMiB: 512 });
  files = await writeFiles(lab.real('/mnt/user'), 300, (i) => 4096 + ((i * 7919) % 200_000));
  const sync = await cli(['array', 'sync']);
  expect(sync.code, sync.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await lab?.destroy();
  for (const d of extra) await d.destroy().catch(() => undefined);
}, 120_000);

describe('appliance array replace', () => {
  let blank: LoopDisk;
  const args = () => ['array', 'replace', '--mountpoint', '/mnt/disk2', '--device', blank.device];

  beforeAll(async () => {
    // disk 2 dies: unmounted, its signature wiped, detached
    const dead = lab.disks.data[1]!;
    await run('umount', [lab.real('/mnt/disk2')]);
    await run('wipefs', ['-a', dead.device]);
    await run('losetup', ['-d', dead.device]);
    blank = await createLoopDisk({ sizeBytes: 768 * MiB, imageDir: lab.imageDir });
    extra.push(blank);
  }, 120_000);

  it('replace-plan shows the plan and changes nothing', async () => {
    const r = await cli(['array', 'replace-plan', '--mountpoint', '/mnt/disk2', '--device', blank.device]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^rebuild: +snapraid fix -d d2$/m);
    expect(r.stdout).toMatch(/^failed disk: +\/dev\/loop\d+ as recorded \(512 MiB\), not attached$/m);
    expect(r.stdout).toMatch(new RegExp(`^confirmation: +ERASE ${blank.device}$`, 'm'));
    expect(r.stdout).toMatch(/Warnings:\n {2}single_parity: (.*\n)+ {2}files_since_last_sync: /);
    expect(await blkid(blank.device)).toBe('nothing');
  });

  it('refuses without a terminal and without --confirm (2), and a wrong phrase typed (1); nothing written', async () => {
    const none = await cli(args());
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('--confirm "PHRASE"')]);
    const wrong = await tty(args(), `ERASE ${lab.disks.data[0]!.device}`);
    expect(wrong.code).toBe(1);
    expect(wrong.screen).toContain(`Type "ERASE ${blank.device}" to confirm:`);
    expect(wrong.screen).toContain('confirmation_required: The phrase typed is not');
    expect(await blkid(blank.device)).toBe('nothing');
    expect((await lab.s.call('GET', '/jobs?type=disk.replace')).body.jobs).toEqual([]);
  });

  it('on a terminal: the plan, the typed phrase, a progress bar, then every file back', async () => {
    const r = await tty(args(), `ERASE ${blank.device}`);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toMatch(/slot: +\/mnt\/disk2 \(data 2\)/);
    expect(r.screen).toContain('Run "snapraid fix -d d2" to rebuild the files of /mnt/disk2 from parity');
    expect(r.screen).toContain(`This ERASES ${blank.device}.`);
    expect(r.screen).toMatch(/[░█]+ \d+% \| (check|format|rebuild|verify|permissions|switch|sync)/);
    expect(r.screen).toMatch(
      new RegExp(`/mnt/disk2 is on ${blank.device} now: \\d+ files rebuilt from parity`),
    );
    for (const [rel, hash] of files) expect(await sha(path.join(lab.real('/mnt/user'), rel)), rel).toBe(hash);
    const show = await cli(['array', 'show']);
    expect(show.stdout).toMatch(new RegExp(`/mnt/disk2 +${blank.device} +xfs +768 MiB +yes`));
  }, 600_000);
});

describe('appliance array upgrade', () => {
  it('from a script with --confirm: progress lines on stderr, the old disk named', async () => {
    const bigger = await createLoopDisk({ sizeBytes: 1000 * MiB, imageDir: lab.imageDir });
    extra.push(bigger);
    const old = lab.disks.data[0]!;
    const r = await cli([
      'array',
      'upgrade',
      '--mountpoint',
      '/mnt/disk1',
      '--device',
      bigger.device,
      '--confirm',
      `ERASE ${bigger.device}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Steps:\n  1. Sync parity if "snapraid diff" reports anything waiting');
    expect(r.stderr).toMatch(/disk\.upgrade \/mnt\/disk1: copy/);
    expect(r.stderr).toMatch(/disk\.upgrade \/mnt\/disk1: .*succeeded/);
    expect(r.stdout).toContain(
      `/mnt/disk1 is on ${bigger.device} now. The old disk ${old.device} is unmounted and unchanged`,
    );
    for (const [rel, hash] of files) expect(await sha(path.join(lab.real('/mnt/user'), rel)), rel).toBe(hash);
    // --json: the job as the API shows it
    const jobs = await cli(['jobs', 'list', '--type', 'disk.upgrade', '--json']);
    expect(JSON.parse(jobs.stdout).jobs[0]).toMatchObject({ state: 'succeeded', target: '/mnt/disk1' });
  }, 600_000);
});
