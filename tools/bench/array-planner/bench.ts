/**
 * Upgrade plan latency (03 §15), end to end over the Unix socket, inventory read included, with
 * 24 loop disks in lab mode: 1 parity (3 GiB) + 20 data (2 GiB, XFS, mounted, recorded through
 * array setup) + 3 spares (3, 4, 2 GiB). No udev records here, so the `blkid -p` fallback runs for
 * every disk on every request (no cache). 20 warm-up then 200 timed requests alternating a data
 * and a parity plan. Same-run references: `GET /api/v1/disks` (the inventory read alone, through
 * the same server) and `lsblk --json` + `blkid -p` of the same devices (util-linux).
 * Target: plan p50 < 50 ms (p95 < 100 ms).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { type LoopDisk, createLoopDisk, requirePrerequisites } from '@appliance/lab';

const run = promisify(execFile);
const GiB = 1024 ** 3;
const { values } = parseArgs({
  options: { requests: { type: 'string', default: '200' }, warmup: { type: 'string', default: '20' } },
});
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

await requirePrerequisites({
  root: true,
  tools: ['losetup', 'mkfs.xfs', 'wipefs', 'blkid', 'mount', 'umount', 'findmnt', 'lsblk'],
});
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-upgrade-plan-'));
const imageDir = path.join(work, 'images');
await fs.mkdir(imageDir);
const disks: LoopDisk[] = [];
let s: Sandbox | null = null;

try {
  const parity = await createLoopDisk({ sizeBytes: 3 * GiB, imageDir });
  disks.push(parity);
  const data: LoopDisk[] = [];
  for (let i = 0; i < 20; i++) data.push(await createLoopDisk({ sizeBytes: 2 * GiB, imageDir }));
  disks.push(...data);
  const spares = [
    await createLoopDisk({ sizeBytes: 3 * GiB, imageDir }),
    await createLoopDisk({ sizeBytes: 4 * GiB, imageDir }),
    await createLoopDisk({ sizeBytes: 2 * GiB, imageDir }),
  ];
  disks.push(...spares);

  s = await startSandbox({ lab: true, config: { lab: { enabled: true, imageDir } } });
  const members = [
    { device: parity.device, role: 'parity' },
    ...data.map((d) => ({ device: d.device, role: 'data' })),
  ];
  const confirmation = `ERASE ${members
    .map((m) => m.device)
    .sort()
    .join(', ')}`;
  const setup = await s.call('POST', '/disks/array', { disks: members, confirmation }, { via: 'unix' });
  if (setup.status !== 201) throw new Error(`array setup failed: ${setup.status} ${setup.text}`);

  const bodies = [
    { mountpoint: '/mnt/disk7', device: spares[0]!.device },
    { mountpoint: '/mnt/parity1', device: spares[1]!.device },
  ];
  for (const b of bodies) {
    const r = await s.call('POST', '/disks/array/upgrade/plan', b, { via: 'unix' });
    if (r.status !== 200) throw new Error(`plan failed: ${r.status} ${r.text}`);
  }
  const sandbox = s;
  const plan = (i: number) =>
    time(async () => {
      const r = await sandbox.call('POST', '/disks/array/upgrade/plan', bodies[i % 2], { via: 'unix' });
      if (r.status !== 200) throw new Error(`plan failed: ${r.status}`);
    });
  const list = () =>
    time(async () => {
      const r = await sandbox.call('GET', '/disks', undefined, { via: 'unix' });
      if (r.status !== 200) throw new Error(`GET /disks failed: ${r.status}`);
    });
  const devices = disks.map((d) => d.device);
  const reference = () =>
    time(() =>
      Promise.all([
        run('lsblk', [
          '--json',
          '-b',
          '-o',
          'NAME,SIZE,MODEL,SERIAL,WWN,FSTYPE,LABEL,UUID,MOUNTPOINTS',
          ...devices,
        ]),
        ...devices.map((d) => run('blkid', ['-p', '-o', 'export', d]).catch(() => undefined)),
      ]),
    );

  // Attribution (not a target): the server's own inventory reader called in-process, with the real
  // runner and with the runner replaying recorded blkid answers (no process spawned; the service
  // never does this).
  const { inventory: reader, runner } = sandbox.server.ctx;
  const realRun = runner.run.bind(runner);
  type RunResult = Awaited<ReturnType<typeof realRun>>;
  const recorded = new Map<string, RunResult>();
  let mode: 'real' | 'record' | 'replay' = 'record';
  runner.run = async (cmd, args, o) => {
    if (mode === 'replay') return recorded.get(args.join(' ')) as RunResult;
    const r = await realRun(cmd, args, o);
    if (mode === 'record') recorded.set(args.join(' '), r);
    return r;
  };
  await reader.read();
  mode = 'real';
  const inProcess = async (m: 'real' | 'replay') => {
    mode = m;
    try {
      return await time(() => reader.read());
    } finally {
      mode = 'real';
    }
  };

  for (let i = 0; i < WARMUP; i++) {
    await plan(i);
    await list();
    await reference();
  }
  const plans: number[] = [];
  const lists: number[] = [];
  const refs: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    plans.push(await plan(i));
    lists.push(await list());
    refs.push(await reference());
  }
  const inproc: number[] = [];
  const nospawn: number[] = [];
  for (let i = 0; i < 50; i++) {
    inproc.push(await inProcess('real'));
    nospawn.push(await inProcess('replay'));
  }
  const f = (x: number) => x.toFixed(2);
  console.log(
    `upgrade plan over the Unix socket, ${disks.length} loop disks in lab mode (1 parity + 20 data mounted + 3 spares), ${REQUESTS} requests after ${WARMUP} warm-up`,
  );
  console.log(
    `  plan            p50 ${f(pct(plans, 50))} ms   p95 ${f(pct(plans, 95))} ms   (target p50 < 50, p95 < 100)`,
  );
  console.log(
    `  GET /disks      p50 ${f(pct(lists, 50))} ms   p95 ${f(pct(lists, 95))} ms   (same-run reference: the inventory read alone)`,
  );
  console.log(
    `  lsblk + blkid   p50 ${f(pct(refs, 50))} ms   p95 ${f(pct(refs, 95))} ms   (util-linux reference, ${devices.length} blkid -p in parallel)`,
  );
  console.log(
    `  attribution: inventory read in-process p50 ${f(pct(inproc, 50))} ms; with blkid answers replayed (no spawn) p50 ${f(pct(nospawn, 50))} ms`,
  );
  console.log(`  ratio plan / GET /disks p50: ${f(pct(plans, 50) / pct(lists, 50))}`);
  console.log(`  ratio plan / lsblk+blkid p50: ${f(pct(plans, 50) / pct(refs, 50))}`);
  if (pct(plans, 50) >= 50) process.exitCode = 1;
} finally {
  if (s) {
    await run('umount', [path.join(s.root, 'mnt/user')]).catch(() => undefined);
    for (let i = 20; i >= 1; i--)
      await run('umount', [path.join(s.root, `mnt/disk${i}`)]).catch(() => undefined);
    await run('umount', [path.join(s.root, 'mnt/parity1')]).catch(() => undefined);
    await s.close();
  }
  for (const d of disks) await d.destroy();
  await fs.rm(work, { recursive: true, force: true });
}
