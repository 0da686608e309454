/**
 * `tools/bench/all`: the service's figures of issue 26 and the two throughput contracts, in one run
 * of a few minutes (about 8 on the 2-core lab host), printed as one table — each figure beside its
 * target and the reference measured in the same run. Each benchmark runs as its own process with
 * BENCH_RESULTS naming a file its figures are appended to (harness.figures); a benchmark that fails
 * to run is reported as such and the others still run. Exit status 1 when any target is missed.
 *
 *   tools/bench/all [--only api,memory,spawn,external-disk,share-data-delete,notify-routing,share-permissions,size]
 * Root (loop devices) for memory, external-disk and share-data-delete.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Figure } from './harness.ts';

const BENCH = path.resolve(import.meta.dirname, '..');
const RUNS: Array<{ name: string; script: string; args: string[]; env?: Record<string, string> }> = [
  { name: 'api', script: 'api/run.ts', args: [] },
  { name: 'web', script: 'web/run.ts', args: [] },
  { name: 'memory', script: 'memory/run.ts', args: [] },
  { name: 'spawn', script: 'spawn/run.ts', args: [] },
  { name: 'external-disk', script: 'external-disk/run.ts', args: ['--list-only', '--runs', '20'] },
  {
    name: 'share-data-delete',
    script: 'share-data-delete/run.ts',
    args: ['p1'],
    env: { BENCH_P1_FILES: '100000', BENCH_ROUNDS: '2' },
  },
  { name: 'notify-routing', script: 'notify-routing/run.ts', args: [] },
  { name: 'share-permissions', script: 'share-permissions/run.ts', args: [] },
  { name: 'size', script: 'size/run.ts', args: [] },
];

const { values } = parseArgs({ options: { only: { type: 'string' } } });
const only = values.only?.split(',');
const results = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-all-')), 'figures.jsonl');
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadBefore = load();
const t0 = performance.now();
const failedToRun: string[] = [];
const lines = () =>
  fs.existsSync(results) ? fs.readFileSync(results, 'utf8').split('\n').filter(Boolean).length : 0;
for (const run of RUNS) {
  if (only && !only.includes(run.name)) continue;
  console.log(`\n# ${run.name}: node tools/bench/${run.script} ${run.args.join(' ')}`);
  const before = lines();
  const r = spawnSync(process.execPath, [path.join(BENCH, run.script), ...run.args], {
    stdio: 'inherit',
    env: { ...process.env, ...run.env, BENCH_RESULTS: results },
  });
  const recorded = lines() > before;
  if (r.status !== 0 && r.status !== 1) failedToRun.push(`${run.name} (exit ${r.status ?? r.signal})`);
  else if (r.status === 1 && !recorded) failedToRun.push(`${run.name} (no figures)`);
}

const rows = fs.existsSync(results)
  ? fs
      .readFileSync(results, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Figure & { bench: string })
  : [];
fs.rmSync(path.dirname(results), { recursive: true, force: true });
const table = [
  ['figure', 'value', 'target', 'reference (same run)', ''],
  ...rows.map((r) => [
    r.figure,
    r.value,
    r.target,
    r.reference,
    r.pass === null ? '' : r.pass ? 'met' : 'MISSED',
  ]),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
console.log(
  `\n# All figures — Node ${process.version}, ${os.availableParallelism()} cores, load ${loadBefore} → ${load()}, ${Math.round((performance.now() - t0) / 1000)} s`,
);
for (const [i, row] of table.entries()) {
  console.log(
    row
      .map((cell, j) => cell.padEnd(widths[j]!))
      .join('  ')
      .trimEnd(),
  );
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
for (const f of failedToRun) console.log(`did not run to the end: ${f}`);
process.exitCode = failedToRun.length > 0 || rows.some((r) => r.pass === false) ? 1 : 0;
