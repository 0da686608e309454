/**
 * Backups through the service against the same `restic backup` run by hand (issue 23): one share of
 * --data-mib (default 1 GiB) in --files (default 10,000) files on a lab array (loop disks, xfs,
 * mergerfs), a loop backup disk (xfs, mounted by hand so neither side pays for the mount), a first
 * backup into an empty repository, then a second after 1 % of the files were rewritten. Each side
 * has its own repository and restic cache on the same disk; the page cache is dropped before every
 * run; sides alternate. The service's time is from `POST /backups/plans/bench/run` to the job's end
 * (destination check, repository init on the first run, the backup, retention); by hand it is
 * `restic init` (first run only) plus `restic backup` of the same folder.
 * Target: the service ≤ 1.1× by hand, for the first and for the second backup.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { createLabArray, type LabArray } from '@appliance/api-server/testing';
import { createLoopDisk, type LoopDisk } from '@appliance/lab';

const run = promisify(execFile);
const MiB = 1024 ** 2;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '2' },
    'data-mib': { type: 'string', default: '1024' },
    files: { type: 'string', default: '10000' },
  },
});
const RUNS = Number(values.runs);
const DATA_MIB = Number(values['data-mib']);
const FILES = Number(values.files);
const TARGET = 1.1;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? (s[(s.length - 1) / 2] as number)
    : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

let lab: LabArray | null = null;
let disk: LoopDisk | null = null;
try {
  lab = await createLabArray({ dataDisks: 1, paritySizeMiB: DATA_MIB + 700, dataSizeMiB: DATA_MIB + 600 });
  const l = lab;
  const call = async (method: string, p: string, body?: unknown) => {
    const r = await l.s.call(method, p, body, { via: 'unix' });
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
    return r.body;
  };
  disk = await createLoopDisk({ sizeBytes: (DATA_MIB * 5 + 2048) * MiB, imageDir: l.imageDir });
  await call('PUT', '/settings', {
    hostname: 'bench',
    timezone: 'UTC',
    backupPassphrase: 'bench passphrase 1234',
  });
  await call('POST', '/disks/external', { device: disk.device, label: 'bench', backupDestination: true });
  await call('POST', '/disks/external/bench/format', { confirmation: `ERASE ${disk.device}` });
  await call('POST', '/shares', { name: 'data' });
  await call('POST', '/disks/external/bench/mount');
  const share = l.real('/mnt/user/data');
  const mount = l.real('/mnt/disks/bench');

  // the data: FILES files of random bytes averaging DATA_MIB / FILES, in 100 folders
  const avg = Math.round((DATA_MIB * MiB) / FILES);
  const sizeOf = (i: number) => Math.round(avg * (0.5 + ((i * 7919) % 1000) / 1000));
  for (let i = 0; i < FILES; i++) {
    const file = path.join(share, `d${i % 100}`, `f${i}.bin`);
    if (i < 100) await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, randomBytes(sizeOf(i)));
  }
  const total = Number((await run('du', ['-sb', share])).stdout.split('\t')[0]);
  await run('sync');

  const dropCaches = async () => {
    await run('sync');
    await fs.writeFile('/proc/sys/vm/drop_caches', '3');
  };

  // by hand: its own repository and cache on the same disk, the same folder, restic's defaults
  const handRepo = path.join(mount, 'hand/repository');
  const handCache = path.join(l.work, 'hand-cache');
  const pw = path.join(l.work, 'hand.pw');
  await fs.writeFile(pw, 'a password for the hand repository', { mode: 0o600 });
  const env = { ...process.env, RESTIC_REPOSITORY: handRepo, RESTIC_PASSWORD_FILE: pw };
  const byHand = async (first: boolean) => {
    await dropCaches();
    const t0 = performance.now();
    if (first) await run('restic', ['--cache-dir', handCache, 'init'], { env });
    await run('restic', ['--cache-dir', handCache, 'backup', '--host', 'bench', '--tag', 'bench', '.'], {
      env,
      cwd: share,
      maxBuffer: 64 * MiB,
    });
    return (performance.now() - t0) / 1000;
  };

  const serviceRepo = path.join(mount, 'appliance-backups/bench');
  /** Seconds spent in each phase of the service's runs (sampled every 5 ms in-process). */
  const phases: Record<string, number[]> = {};
  const viaService = async () => {
    await dropCaches();
    const t0 = performance.now();
    const job = await call('POST', '/backups/plans/bench/run');
    const accepted = performance.now();
    let phase = 'request';
    let since = t0;
    const spent: Record<string, number> = {};
    const sampler = setInterval(() => {
      const p = l.s.server.ctx.jobs.get(job.id as string)?.phase ?? 'start';
      if (p === phase) return;
      const now = performance.now();
      spent[phase] = (spent[phase] ?? 0) + (now - since) / 1000;
      phase = p;
      since = now;
    }, 5);
    const ended = await l.s.server.ctx.jobs.wait(job.id as string);
    clearInterval(sampler);
    const end = performance.now();
    spent[phase] = (spent[phase] ?? 0) + (end - since) / 1000;
    spent['request'] = (accepted - t0) / 1000;
    for (const [k, v] of Object.entries(spent)) {
      phases[k] ??= [];
      phases[k].push(v);
    }
    if (ended.state !== 'succeeded') throw new Error(`run ${ended.state}: ${JSON.stringify(ended.error)}`);
    return (end - t0) / 1000;
  };

  const change = async (round: number) => {
    // 1 % of the files rewritten with new bytes
    for (let i = 0; i < FILES; i += 100) {
      const file = path.join(share, `d${i % 100}`, `f${i + round}.bin`);
      await fs.writeFile(file, randomBytes(sizeOf(i + round)));
    }
  };

  const first = { hand: [] as number[], service: [] as number[] };
  const second = { hand: [] as number[], service: [] as number[] };
  await call('POST', '/backups/plans', {
    name: 'bench',
    destination: 'bench',
    shares: ['data'],
    schedule: { kind: 'daily', time: '03:00' },
  });
  for (let i = 0; i < RUNS; i++) {
    // fresh repositories and caches each round (the plan stays; its new repository is made by its run)
    await fs.rm(serviceRepo, { recursive: true, force: true });
    await fs.rm(path.join(mount, 'hand'), { recursive: true, force: true });
    await fs.rm(handCache, { recursive: true, force: true });
    await fs.rm(path.join(l.s.server.ctx.paths.stateDir, 'cache'), { recursive: true, force: true });
    const serviceFirst = i % 2 === 0;
    if (serviceFirst) {
      first.service.push(await viaService());
      first.hand.push(await byHand(true));
    } else {
      first.hand.push(await byHand(true));
      first.service.push(await viaService());
    }
    await change(i + 1);
    if (serviceFirst) {
      second.hand.push(await byHand(false));
      second.service.push(await viaService());
    } else {
      second.service.push(await viaService());
      second.hand.push(await byHand(false));
    }
  }
  const load = (await fs.readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
  const line = (name: string, r: { hand: number[]; service: number[] }) => {
    const ratio = median(r.service) / median(r.hand);
    console.log(`  ${name}`);
    console.log(
      `    restic backup by hand:  ${r.hand.map((x) => x.toFixed(2)).join(' / ')} s, median ${median(r.hand).toFixed(2)} s`,
    );
    console.log(
      `    through the service:    ${r.service.map((x) => x.toFixed(2)).join(' / ')} s, median ${median(r.service).toFixed(2)} s`,
    );
    console.log(`    ratio ${ratio.toFixed(3)}× (target ≤ ${TARGET}×) ${ratio <= TARGET ? '✔' : '✘'}`);
    return ratio <= TARGET;
  };
  console.log(
    `backup of ${(total / MiB).toFixed(0)} MiB in ${FILES} files, ${RUNS} rounds (page cache dropped before each run; load average at the end ${load})`,
  );
  const a = line('first backup (empty repository; by hand: init + backup)', first);
  const b = line('second backup (1 % of the files rewritten)', second);
  console.log(
    `  the service's runs by phase (seconds, all runs): ${Object.entries(phases)
      .map(([k, v]) => `${k} ${v.map((x) => x.toFixed(2)).join('/')}`)
      .join('; ')}`,
  );
  process.exitCode = a && b ? 0 : 1;
} finally {
  await lab?.destroy();
  await disk?.destroy().catch(() => undefined);
}
