/**
 * External disk format overhead (07 §10): lab mode with 24 loop devices (1 GiB sparse each)
 * attached, one of them formatted as xfs N times through the real server over HTTP. The overhead
 * is the request's wall time minus the wall time of `mkfs.xfs` as the server's command runner
 * recorded it (both inventory reads, the probes, wipefs, the read-back, the transaction and the
 * audit row). Reference in the same run: the same `mkfs.xfs -f -L <label> <dev>` run directly on a
 * second lab disk of the same size.
 * Also times `GET /disks/external` (target p50 < 50 ms; a listing reuses the fallback probes of
 * disks that did not change, docs/decisions/performance.md), after the formats.
 * `--list-only`: only the listing (no format): 24 disks, 5 warm-up reads, then --runs timed reads.
 *
 *   node tools/bench/external-disk/run.ts [--runs 20] [--disks 24] [--list-only]   (run.ts starts this file)
 *
 * Needs root, losetup and xfsprogs. Cleans up its loop devices and images.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { startSandbox } from '@appliance/api-server/testing';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { figures, loadAverage } from '../src/harness.ts';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    disks: { type: 'string', default: '24' },
    'list-only': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const DISKS = Number(values.disks);
const GiB = 1024 * 1024 * 1024;
const LABEL = 'benchfmt';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

await requirePrerequisites({ root: true, tools: ['losetup', 'mkfs.xfs', 'wipefs', 'blkid', 'blockdev'] });
const imageDir = await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-bench-extdisk-'));
const disks: LoopDisk[] = [];
let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
try {
  for (let i = 0; i < DISKS; i++) {
    disks.push(
      await createLoopDisk({
        imageDir,
        sizeBytes: GiB,
        ...(i === 0 ? { filesystem: 'ext4', label: LABEL } : {}),
      }),
    );
  }
  const target = disks[0]!;
  // The reference runs on another disk of the same size: a direct mkfs gives the target a new
  // filesystem UUID, and a weak (loop) disk's row is matched by that UUID.
  const reference = disks[1]!;
  sandbox = await startSandbox({ lab: true, config: { lab: { enabled: true, imageDir } } });
  const s = sandbox;

  // Record mkfs wall time as the server's command runner sees it.
  const ctx = s.server.ctx;
  const inner = ctx.runner;
  let mkfsMs = 0;
  let commands = 0;
  ctx.runner = {
    resolve: (command) => inner.resolve(command),
    async run(command, args, options) {
      const t = performance.now();
      const result = await inner.run(command, args, options);
      commands++;
      if (command.startsWith('mkfs.')) mkfsMs = performance.now() - t;
      return result;
    },
  };

  if (values['list-only']) {
    const listMs: number[] = [];
    for (let i = 0; i < 5 + RUNS; i++) {
      const t = performance.now();
      const r = await s.call('GET', '/disks/external');
      if (r.status !== 200) throw new Error(`list failed: ${r.status}`);
      if (i >= 5) listMs.push(performance.now() - t);
    }
    const inventoryMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await ctx.inventory.read();
      inventoryMs.push(performance.now() - t);
    }
    const p50 = pct(listMs, 50);
    const ok = figures(
      `GET /disks/external, ${DISKS} lab loop disks (no udev records), load ${loadAverage()}`,
      [
        {
          figure: 'GET /disks/external p50',
          value: ms(p50),
          target: '< 50 ms',
          reference: `max ${ms(Math.max(...listMs))}; a fully fresh inventory read p50 ${ms(pct(inventoryMs, 50))}`,
          pass: p50 < 50,
        },
      ],
    );
    process.exitCode = ok ? 0 : 1;
  } else {
    const overhead: number[] = [];
    const requestMs: number[] = [];
    const serverMkfs: number[] = [];
    let commandsPerFormat = 0;
    const directMkfs: number[] = [];
    const body = { confirmation: `ERASE ${target.device}`, filesystem: 'xfs' };
    // One warm-up format (registers the candidate), then alternate: direct mkfs, request.
    const warm = await s.call('POST', `/disks/external/${LABEL}/format`, body);
    if (warm.status !== 200) throw new Error(`warm-up format failed: ${warm.status} ${warm.text}`);
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await run('mkfs.xfs', ['-f', '-L', LABEL, reference.device]);
      directMkfs.push(performance.now() - t0);
      mkfsMs = 0;
      commands = 0;
      const t1 = performance.now();
      const r = await s.call('POST', `/disks/external/${LABEL}/format`, body);
      const wall = performance.now() - t1;
      if (r.status !== 200) throw new Error(`format ${i} failed: ${r.status} ${r.text}`);
      requestMs.push(wall);
      serverMkfs.push(mkfsMs);
      overhead.push(wall - mkfsMs);
      commandsPerFormat = commands;
    }
    // The inventory read alone (a format does two): the reader's share of the overhead.
    const inventoryMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await ctx.inventory.read();
      inventoryMs.push(performance.now() - t);
    }
    const listMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const r = await s.call('GET', '/disks/external');
      listMs.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`list failed: ${r.status}`);
    }

    console.log(
      `external disk format, ${DISKS} lab loop disks of 1 GiB, ${RUNS} xfs formats over HTTP (node ${process.version})`,
    );
    console.log(
      `  request wall time        p50 ${ms(pct(requestMs, 50))}   max ${ms(Math.max(...requestMs))}`,
    );
    console.log(
      `  mkfs.xfs inside request  p50 ${ms(pct(serverMkfs, 50))}   max ${ms(Math.max(...serverMkfs))}`,
    );
    console.log(
      `  mkfs.xfs run directly    p50 ${ms(pct(directMkfs, 50))}   max ${ms(Math.max(...directMkfs))}   (reference)`,
    );
    console.log(
      `  overhead beyond mkfs     p50 ${ms(pct(overhead, 50))}   max ${ms(Math.max(...overhead))}   target p50 < 200 ms: ${pct(overhead, 50) < 200 ? 'MET' : 'MISSED'}`,
    );
    console.log(
      `  request p50 / direct mkfs p50 = ${(pct(requestMs, 50) / pct(directMkfs, 50)).toFixed(2)}x (request p50 − direct p50 = ${ms(pct(requestMs, 50) - pct(directMkfs, 50))})`,
    );
    console.log(
      `  one inventory read       p50 ${ms(pct(inventoryMs, 50))}   max ${ms(Math.max(...inventoryMs))}   (a format reads two; commands per format outside the reader: ${commandsPerFormat})`,
    );
    console.log(
      `  overhead p50 − 2 × inventory p50 = ${ms(pct(overhead, 50) - 2 * pct(inventoryMs, 50))} (probes, wipefs, read-back, transaction, HTTP)`,
    );
    console.log(
      `  GET /disks/external      p50 ${ms(pct(listMs, 50))}   max ${ms(Math.max(...listMs))}   target p50 < 50 ms: ${pct(listMs, 50) < 50 ? 'MET' : 'MISSED'}`,
    );
  }
} finally {
  await sandbox?.close();
  for (const d of disks) await d.destroy().catch(() => undefined);
  await fs.rm(imageDir, { recursive: true, force: true });
}
