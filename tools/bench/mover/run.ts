// Benchmark of the mover (issue 37): moving 1 GiB in 10,000 files from a cache disk to the data
// disks with @appliance/shares' runMover (the engine of the mover job: scan, open-file check,
// plan, journalled rsync batches, verification, removal, tidy) against `rsync -aHAX
// --remove-source-files` by hand, on real XFS loop disks, in one run.
//
//   node tools/bench/mover/run.ts
//
// Environment: BENCH_FILES (10000), BENCH_TOTAL_MIB (1024), BENCH_ROUNDS (2: rsync and mover
// alternated, which goes first alternating by round; the better time of each side counts), BENCH_POLICY (ff: every file to disk1, the
// reference's single destination, so the figure is the mover's own cost; mfs spreads them). Root, rsync, mkfs.xfs and mergerfs are required.
//
// M1: mover time ÷ rsync time, target ≤ 1.2. Before each timed side the tree is written afresh,
//     `sync`ed and the page cache dropped (`echo 3 > /proc/sys/vm/drop_caches`). The line after the
//     figures gives the mover's time per phase (runMover's `onPhase`), per round.
// M2: the pool stays responsive: a separate process `stat`s random files through a mergerfs pool
//     over the same disks (cache first) every 10 ms while the mover runs; p99 < 50 ms. The same
//     sampler runs beside the rsync reference, so both sides carry the same load.
import { execFileSync, spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner } from '../../../packages/common/src/index.ts';
import { runMover } from '../../../packages/shares/src/index.ts';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '../../lab/src/index.ts';
import { figures, loadAverage, percentile } from '../src/harness.ts';

const FILES = Number(process.env['BENCH_FILES'] ?? 10_000);
const TOTAL = Number(process.env['BENCH_TOTAL_MIB'] ?? 1024) * 1024 * 1024;
const ROUNDS = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 2));
const SHARE = 'bench';
/** The share's create policy: `ff` fills disk1 first, the reference's one destination; `mfs` spreads. */
const POLICY = (process.env['BENCH_POLICY'] ?? 'ff') as 'ff' | 'mfs';
const GiB = 1024 ** 3;

const step = (msg: string) => console.error(`[mover-bench] ${msg}`);

await requirePrerequisites({
  root: true,
  tools: ['rsync', 'mkfs.xfs', 'mergerfs', 'losetup', 'mount', 'umount'],
});
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mover-bench-'));
const disks: LoopDisk[] = [];
const mounts: string[] = [];
const cleanup = () => {
  for (const m of [...mounts].reverse()) {
    try {
      execFileSync('umount', [m]);
    } catch {
      try {
        execFileSync('umount', ['-l', m]);
      } catch {
        // gone
      }
    }
  }
  mounts.length = 0;
};
process.once('SIGINT', () => {
  cleanup();
  process.exit(130);
});

try {
  const mnt = (name: string) => path.join(work, name);
  for (const [name, size] of [
    ['cache', 3 * GiB],
    ['disk1', 2 * GiB],
    ['disk2', 2 * GiB],
  ] as const) {
    const d = await createLoopDisk({
      sizeBytes: size,
      filesystem: 'xfs',
      imageDir: path.join(work, 'images'),
    });
    disks.push(d);
    fs.mkdirSync(mnt(name), { recursive: true });
    execFileSync('mount', [d.device, mnt(name)]);
    mounts.push(mnt(name));
  }
  fs.mkdirSync(mnt('pool'));
  execFileSync('mergerfs', [
    '-o',
    'category.create=ff,allow_other,cache.files=off',
    `${mnt('cache')}:${mnt('disk1')}:${mnt('disk2')}`,
    mnt('pool'),
  ]);
  mounts.push(mnt('pool'));

  const size = Math.floor(TOTAL / FILES);
  const buf = Buffer.alloc(size);
  const rels: string[] = [];
  for (let i = 0; i < FILES; i++) rels.push(`d${i % 20}/s${Math.floor(i / 20) % 25}/f${i}.bin`);
  const writeTree = () => {
    for (const rel of rels) {
      const f = path.join(mnt('cache'), SHARE, rel);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      randomFillSync(buf);
      fs.writeFileSync(f, buf);
    }
    execFileSync('sync');
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3');
  };
  const clearDisks = () => {
    for (const d of ['disk1', 'disk2']) fs.rmSync(path.join(mnt(d), SHARE), { recursive: true, force: true });
    fs.rmSync(path.join(mnt('cache'), SHARE), { recursive: true, force: true });
    for (const d of ['cache', 'disk1', 'disk2']) fs.mkdirSync(path.join(mnt(d), SHARE));
    execFileSync('sync');
  };

  /**
   * A process that `stat`s random files of the share through the pool every 10 ms (its own
   * process, so the mover's event loop never delays a sample); `stop` returns the latencies in ms.
   */
  const startSampler = () => {
    const sampler = spawn(
      process.execPath,
      [
        '-e',
        `const fs=require('fs');const rels=JSON.parse(process.argv[1]);const root=process.argv[2];const out=[];
         const t=setInterval(()=>{const r=rels[Math.floor(Math.random()*rels.length)];const s=process.hrtime.bigint();
         try{fs.statSync(root+'/'+r)}catch{};out.push(Number(process.hrtime.bigint()-s)/1e6)},10);
         process.on('SIGTERM',()=>{clearInterval(t);process.stdout.write(JSON.stringify(out),()=>process.exit(0))});`,
        JSON.stringify(rels.filter((_, i) => i % 10 === 0)),
        path.join(mnt('pool'), SHARE),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let sampled = '';
    sampler.stdout.on('data', (d: Buffer) => (sampled += d));
    const done = new Promise<void>((r) => sampler.once('exit', () => r()));
    return {
      async stop(): Promise<number[]> {
        sampler.kill('SIGTERM');
        await done;
        return JSON.parse(sampled || '[]') as number[];
      },
    };
  };

  const rsyncTimes: number[] = [];
  const moverTimes: number[] = [];
  /** Per mover round: the wall time of each phase (runMover's `onPhase`), summed over batches. */
  const phaseTimes: Map<string, number>[] = [];
  let statLatencies: number[] = [];
  const runner = createCommandRunner();
  const reference = async (round: number) => {
    clearDisks();
    writeTree();
    step(`round ${round + 1}: rsync -aHAX --remove-source-files`);
    // the same sampler runs beside both sides: the same load on both
    const refSampler = startSampler();
    const t = process.hrtime.bigint();
    execFileSync('rsync', [
      '-aHAX',
      '--remove-source-files',
      `${path.join(mnt('cache'), SHARE)}/`,
      `${path.join(mnt('disk1'), SHARE)}/`,
    ]);
    rsyncTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    await refSampler.stop();
  };
  const mover = async (round: number) => {
    clearDisks();
    writeTree();
    step(`round ${round + 1}: mover`);
    const sampler = startSampler();
    const phases = new Map<string, number>();
    phaseTimes.push(phases);
    const t = process.hrtime.bigint();
    const result = await runMover({
      onPhase: (name, ms) => phases.set(name, (phases.get(name) ?? 0) + ms),
      shares: [{ name: SHARE, createPolicy: POLICY }],
      cacheRoot: mnt('cache'),
      dataDisks: [mnt('disk1'), mnt('disk2')],
      minFreeBytes: 64 * 1024 * 1024,
      verify: 'size-mtime',
      journalDir: path.join(work, 'journal'),
      procDir: '/proc',
      runner,
    });
    moverTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    statLatencies = statLatencies.concat(await sampler.stop());
    if (result.movedFiles !== FILES || result.skippedCount !== 0)
      throw new Error(
        `the mover moved ${result.movedFiles} of ${FILES} files, skipped ${result.skippedCount}`,
      );
  };
  for (let round = 0; round < ROUNDS; round++) {
    // which side goes first alternates: neither always follows the other's leftovers
    if (round % 2 === 0) {
      await reference(round);
      await mover(round);
    } else {
      await mover(round);
      await reference(round);
    }
  }
  const best = (xs: number[]) => Math.min(...xs);
  const ratio = best(moverTimes) / best(rsyncTimes);
  const p99 = percentile(statLatencies, 99);
  console.log(
    `\nmover (${POLICY}) vs rsync, ${FILES} files, ${(TOTAL / 1024 ** 2).toFixed(0)} MiB, ${ROUNDS} round(s), load ${loadAverage()}`,
  );
  console.log(
    `rsync ms: ${rsyncTimes.map((x) => x.toFixed(0)).join(', ')}; mover ms: ${moverTimes.map((x) => x.toFixed(0)).join(', ')}`,
  );
  // where the mover's time went, per round (ms): what it adds to rsync's own work
  const names = [...new Set(phaseTimes.flatMap((m) => [...m.keys()]))];
  console.log(
    `mover phases ms (per round): ${names
      .map((n) => `${n} ${phaseTimes.map((m) => (m.get(n) ?? 0).toFixed(0)).join('/')}`)
      .join(', ')}`,
  );
  const ok = figures('mover (issue 37)', [
    {
      figure: 'M1 mover time ÷ rsync -aHAX --remove-source-files',
      value: `${ratio.toFixed(2)}× (${(best(moverTimes) / 1000).toFixed(1)} s)`,
      target: '≤ 1.2×',
      reference: `${(best(rsyncTimes) / 1000).toFixed(1)} s`,
      pass: ratio <= 1.2,
    },
    {
      figure: 'M2 stat through the pool during a move, p99',
      value: `${p99.toFixed(1)} ms (${statLatencies.length} samples)`,
      target: '< 50 ms',
      reference: '',
      pass: p99 < 50,
    },
  ]);
  process.exitCode = ok ? 0 : 1;
} finally {
  cleanup();
  for (const d of disks) await d.destroy().catch(() => undefined);
  fs.rmSync(work, { recursive: true, force: true });
}
