/**
 * Parity sync through the service against `snapraid sync` run by hand (issue 27): the same loop
 * disks (parity 3 GiB, two data disks of 2 GiB, xfs, lab mode), the same data (--data-mib in 16 MiB
 * files through the pool), a full sync each time (the parity file and the content files removed
 * first, the page cache dropped), alternating service and hand, --runs of each; medians compared.
 * The service's time is from `POST /disks/array/parity/sync` to the job's end as `GET /jobs/:id`
 * reports it, so it includes its check, diff, guard and status phases. During the service's syncs
 * `GET /disks/array/parity` is timed every 20 ms over the Unix socket.
 * Targets: service ≤ 1.05× by hand; GET p50 < 5 ms while a sync runs.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { parseArgs, promisify } from 'node:util';
import { createLabArray, type LabArray, writeFiles } from '@appliance/api-server/testing';

const run = promisify(execFile);
const MiB = 1024 ** 2;
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, 'data-mib': { type: 'string', default: '1536' } },
});
const RUNS = Number(values.runs);
const DATA_MIB = Number(values['data-mib']);
const SYNC_TARGET = 1.05;
const GET_TARGET_MS = 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? (s[(s.length - 1) / 2] as number)
    : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

let lab: LabArray | null = null;
try {
  lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 3072, dataSizeMiB: 2048 });
  const l = lab;
  const conf = l.s.server.ctx.paths.snapraidConf;
  await writeFiles(l.real('/mnt/user'), Math.round(DATA_MIB / 16), () => 16 * MiB, 'bench');
  await run('sync');

  /** A full sync from nothing: no parity file, no content file, a cold page cache. */
  const reset = async () => {
    const text = await fs.readFile(conf, 'utf8');
    for (const line of text.split('\n')) {
      const m = /^(parity|content)\s+(.+)$/.exec(line.trim());
      if (m) await fs.rm(m[2]!, { force: true });
    }
    await run('sync');
    await fs.writeFile('/proc/sys/vm/drop_caches', '3');
  };

  const byHand = async () => {
    await reset();
    const t0 = performance.now();
    await run('snapraid', ['-c', conf, 'sync'], { maxBuffer: 64 * MiB });
    return (performance.now() - t0) / 1000;
  };

  const getTimes: number[] = [];
  const viaService = async () => {
    await reset();
    const t0 = performance.now();
    const r = await l.s.call('POST', '/disks/array/parity/sync', {}, { via: 'unix' });
    if (r.status !== 202) throw new Error(`sync refused: ${r.status} ${r.text}`);
    const id = r.body.id as string;
    for (;;) {
      const g0 = performance.now();
      const st = await l.s.call('GET', '/disks/array/parity', undefined, { via: 'unix' });
      const ms = performance.now() - g0;
      if (st.body.running?.phase === 'sync') getTimes.push(ms);
      const j = await l.s.call('GET', `/jobs/${id}`, undefined, { via: 'unix' });
      if (!['queued', 'running'].includes(j.body.state)) {
        if (j.body.state !== 'succeeded')
          throw new Error(`sync ${j.body.state}: ${JSON.stringify(j.body.error)}`);
        // the job's own end time: the polling interval does not count
        return (performance.now() - t0) / 1000;
      }
      await new Promise((res) => setTimeout(res, 20));
    }
  };

  const hand: number[] = [];
  const service: number[] = [];
  await viaService(); // warm-up: code paths and the first status
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) {
      service.push(await viaService());
      hand.push(await byHand());
    } else {
      hand.push(await byHand());
      service.push(await viaService());
    }
  }
  const ratio = median(service) / median(hand);
  const p50 = pct(getTimes, 50);
  console.log(
    `parity sync of ${DATA_MIB} MiB in ${Math.round(DATA_MIB / 16)} files, ${RUNS} runs each (full sync, cold cache)`,
  );
  console.log(
    `  snapraid sync by hand:   ${hand.map((x) => x.toFixed(2)).join(' / ')} s, median ${median(hand).toFixed(2)} s`,
  );
  console.log(
    `  through the service:     ${service.map((x) => x.toFixed(2)).join(' / ')} s, median ${median(service).toFixed(2)} s (check + diff + guard + sync + status)`,
  );
  console.log(`  ratio ${ratio.toFixed(3)}× (target ≤ ${SYNC_TARGET}×) ${ratio <= SYNC_TARGET ? '✔' : '✘'}`);
  console.log(
    `  GET /disks/array/parity during the syncs: p50 ${p50.toFixed(2)} ms, p95 ${pct(getTimes, 95).toFixed(2)} ms over ${getTimes.length} requests (target p50 < ${GET_TARGET_MS} ms) ${p50 < GET_TARGET_MS ? '✔' : '✘'}`,
  );
  process.exitCode = ratio <= SYNC_TARGET && p50 < GET_TARGET_MS ? 0 : 1;
} finally {
  await lab?.destroy();
}
