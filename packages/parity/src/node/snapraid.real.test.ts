/**
 * The adapter against the real SnapRAID on loop disks (xfs, parity + two data disks): what each
 * command's records mean, cancellation with SIGINT, the error line of a failed run, and that a
 * killed parent stops SnapRAID (setpriv --pdeathsig).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCommandRunner } from '@appliance/common';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnapraid, type Snapraid } from './snapraid.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

let root: string;
let conf: string;
const disks: LoopDisk[] = [];
const mounts: string[] = [];
let snapraid: Snapraid;
const runner = createCommandRunner();
const mnt = (n: string) => path.join(root, 'mnt', n);

async function mountDisk(d: LoopDisk, at: string) {
  await fs.mkdir(at, { recursive: true });
  await run('mount', [d.device, at]);
  mounts.push(at);
}

async function writeRandom(file: string, bytes: number) {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 4) buf.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, i);
  await fs.writeFile(file, buf);
}

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['snapraid', 'setpriv', 'losetup', 'mkfs.xfs', 'mount'] });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'parity-real-'));
  for (const [name, size] of [
    ['parity1', 400],
    ['disk1', 320],
    ['disk2', 320],
  ] as const) {
    const d = await createLoopDisk({ sizeBytes: size * MiB, imageDir: root, filesystem: 'xfs' });
    disks.push(d);
    await mountDisk(d, mnt(name));
  }
  await fs.mkdir(path.join(root, 'state'));
  conf = path.join(root, 'snapraid.conf');
  await fs.writeFile(
    conf,
    [
      `parity ${mnt('parity1')}/snapraid.parity`,
      `content ${root}/state/snapraid.content`,
      `content ${mnt('disk1')}/.snapraid.content`,
      `content ${mnt('disk2')}/.snapraid.content`,
      `data d1 ${mnt('disk1')}/`,
      `data d2 ${mnt('disk2')}/`,
      '',
    ].join('\n'),
  );
  snapraid = createSnapraid({ runner, configFile: conf });
  for (let i = 0; i < 20; i++)
    await writeRandom(path.join(mnt(`disk${(i % 2) + 1}`), 'photos', `f${i}.bin`), 256 * 1024);
  await writeRandom(path.join(mnt('disk1'), 'trip 2019:day one', 'a.jpg'), 64 * 1024);
}, 120_000);

afterAll(async () => {
  for (const m of mounts.reverse()) await run('umount', [m]).catch(() => undefined);
  for (const d of disks) await d.destroy().catch(() => undefined);
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe('snapraid on loop disks', () => {
  it('diff lists what a first sync will add (exit 2 is success), with a colon in a name', async () => {
    const { run: r, diff } = await snapraid.diff();
    expect(r.errorLine).toBeNull();
    expect(r.exitCode).toBe(2);
    expect(diff).toMatchObject({ added: 21, removed: 0, changes: true });
    expect(diff.paths.added).toContain('d1/trip 2019:day one/a.jpg');
  });

  it('sync computes parity with progress; status then has nothing to sync', async () => {
    const seen: number[] = [];
    const { run: r, diff } = await snapraid.sync({ onProgress: (p) => seen.push(p.percent) });
    expect(r.exitCode).toBe(0);
    expect(r.errorLine).toBeNull();
    expect(diff.added).toBe(21);
    expect(seen.at(-1)).toBe(100);
    expect(r.progress?.bytesDone).toBeGreaterThan(5 * MiB);
    expect((await fs.stat(path.join(mnt('parity1'), 'snapraid.parity'))).size).toBeGreaterThan(0);
    const after = await snapraid.diff();
    expect(after.run.exitCode).toBe(0);
    expect(after.diff.changes).toBe(false);
    const { status } = await snapraid.status();
    expect(status.unsynced).toBe(false);
    expect(status.filesCount).toBe(21);
    expect(status.oldestScrubAt).not.toBeNull();
  });

  it('diff names removed files; touch runs', async () => {
    await fs.rm(path.join(mnt('disk2'), 'photos', 'f1.bin'));
    const { diff } = await snapraid.diff();
    expect(diff.removed).toBe(1);
    expect(diff.paths.removed).toEqual(['d2/photos/f1.bin']);
    expect((await snapraid.touch()).run.exitCode).toBe(0);
    expect((await snapraid.sync()).run.exitCode).toBe(0);
  });

  it('scrub finds silent corruption (same size and mtime) and names the file', async () => {
    const file = path.join(mnt('disk1'), 'photos', 'f4.bin');
    // keep the exact (nanosecond) times: snapraid would take a changed mtime for an update
    const ref = path.join(root, 'times-ref');
    await run('touch', ['-r', file, ref]);
    const fh = await fs.open(file, 'r+');
    await fh.write(Buffer.from('corrupted!'), 0, 10, 1000);
    await fh.close();
    await run('touch', ['-r', ref, file]);
    const { run: r, findings } = await snapraid.scrub({ percent: 100, olderThanDays: 0 });
    expect(r.errorLine).toBeNull();
    expect(findings.dataErrors).toBeGreaterThan(0);
    expect(findings.files.map((f) => `${f.disk}/${f.path}`)).toEqual(['d1/photos/f4.bin']);
    // `check -a -d d1` (hashes only) names it too
    const audit = await snapraid.check({ disk: 'd1', auditOnly: true });
    expect(audit.findings.files.map((f) => `${f.disk}/${f.path}`)).toEqual(['d1/photos/f4.bin']);
    // repair it so the next tests start clean
    const fixed = await snapraid.fix({ disk: 'd1' });
    expect(fixed.run.exitCode).toBe(0);
    expect(fixed.findings.recovered).toContain('d1/photos/f4.bin');
    const check = await snapraid.check({ disk: 'd1' });
    expect(check.run.exitCode).toBe(0);
    expect(check.findings.dataErrors).toBe(0);
    const whole = await snapraid.check({});
    expect([whole.run.exitCode, whole.findings.exit]).toEqual([0, 'ok']);
  });

  it('a cancelled sync stops cleanly (SIGINT) and the next sync completes', async () => {
    for (let i = 0; i < 8; i++) await writeRandom(path.join(mnt('disk2'), 'big', `b${i}.bin`), 24 * MiB);
    const controller = new AbortController();
    // abort as the block loop starts (its "Syncing..." message): deterministic, however fast the disks
    const r = await snapraid.sync({
      signal: controller.signal,
      onRecord: (rec) => {
        if (rec.kind === 'msg' && rec.text.startsWith('Syncing')) controller.abort();
      },
    });
    expect(r.run.cancelled).toBe(true);
    // the progress where it stopped, not 100 % (snapraid closes an interrupted loop with
    // "N% completed, M MB accessed" too)
    expect(r.run.progress?.percent).toBeLessThan(100);
    expect(r.run.progress?.etaSeconds).toBeNull();
    const again = await snapraid.sync();
    expect(again.run.exitCode).toBe(0);
    expect((await snapraid.diff()).diff.changes).toBe(false);
  });

  it('a cancel that arrives once the block loop is done does not cancel: the sync completed', async () => {
    for (let i = 0; i < 4; i++) await writeRandom(path.join(mnt('disk1'), 'late', `l${i}.bin`), 8 * MiB);
    const controller = new AbortController();
    // SIGINT while snapraid saves its state after "100% completed"
    const r = await snapraid.sync({
      signal: controller.signal,
      onProgress: (p) => {
        if (p.percent === 100) controller.abort();
      },
    });
    expect(controller.signal.aborted).toBe(true);
    expect([r.run.cancelled, r.run.exitCode, r.run.errorLine]).toEqual([false, 0, null]);
    expect(r.run.progress).toMatchObject({ percent: 100 });
    expect((await snapraid.diff()).diff.changes).toBe(false);
    const { status } = await snapraid.status();
    expect(status.unsynced).toBe(false);
  });

  it('a cancelled scrub keeps its progress; one cancelled after its loop completed', async () => {
    const mid = new AbortController();
    const stopped = await snapraid.scrub(
      { percent: 100, olderThanDays: 0 },
      {
        signal: mid.signal,
        onRecord: (rec) => {
          if (rec.kind === 'msg' && rec.text.startsWith('Scrubbing')) mid.abort();
        },
      },
    );
    expect(stopped.run.cancelled).toBe(true);
    expect(stopped.run.progress?.percent ?? 0).toBeLessThan(100);
    const late = new AbortController();
    const done = await snapraid.scrub(
      { percent: 100, olderThanDays: 0 },
      {
        signal: late.signal,
        onProgress: (p) => {
          if (p.percent === 100) late.abort();
        },
      },
    );
    expect(late.signal.aborted).toBe(true);
    expect([done.run.cancelled, done.run.exitCode, done.findings.exit]).toEqual([false, 0, 'ok']);
  });

  it('a failed run carries snapraid’s own error line (a data disk that is not there)', async () => {
    const bad = path.join(root, 'bad.conf');
    await fs.writeFile(
      bad,
      (await fs.readFile(conf, 'utf8')).replace(`data d2 ${mnt('disk2')}/`, `data d2 ${root}/missing-disk/`),
    );
    const r = await createSnapraid({ runner, configFile: bad }).sync();
    expect(r.run.exitCode).not.toBe(0);
    expect(r.run.errorLine).toMatch(/missing-disk|d2/);
  });

  it('a parent that dies stops snapraid (setpriv --pdeathsig INT)', async () => {
    for (let i = 0; i < 8; i++) await writeRandom(path.join(mnt('disk1'), 'big', `c${i}.bin`), 16 * MiB);
    // a child Node process runs a sync through the adapter and is killed outright
    const script = `
      import { createCommandRunner } from '@appliance/common';
      import { createSnapraid } from './src/node/snapraid.ts';
      const s = createSnapraid({ runner: createCommandRunner(), configFile: ${JSON.stringify(conf)} });
      await s.sync({ onSpawn: (pid) => console.log('pid ' + pid) });`;
    const child = spawn(
      process.execPath,
      ['--conditions=@appliance/source', '--input-type=module', '-e', script],
      {
        cwd: path.resolve(import.meta.dirname, '../..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const pid = await new Promise<number>((resolve) =>
      child.stdout!.on('data', (d: Buffer) => {
        const m = /pid (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGKILL');
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const alive = await fs.access(`/proc/${pid}`).then(
        () => true,
        () => false,
      );
      if (!alive) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await expect(fs.access(`/proc/${pid}`)).rejects.toThrow();
    const again = await snapraid.sync();
    expect(again.run.exitCode).toBe(0);
  }, 120_000);
});
