/**
 * The cost of one spawn through the `CommandRunner` port (`@appliance/common`, issue 33: execa is the
 * engine under it again), against bare `child_process.spawn` in the same run: `--spawns` runs of
 * `true` one after the other (await each exit), `--rounds` rounds alternating the sides so that
 * this VM's drift hits them alike. Per side: wall time per spawn (median round) and this process's
 * CPU time per spawn (user + system, all threads; the figure the machine's load moves least).
 * `BENCH_BEFORE=<other checkout>` adds that checkout's runner (its packages/common/src/command.ts)
 * as a third side: the previous engine, measured in the same run. No target: a figure to report.
 *
 *   node tools/bench/spawn/run.ts [--spawns 200] [--rounds 5]
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandRunner } from '../../../packages/common/src/command.ts';
import { createCommandRunner } from '../../../packages/common/src/command.ts';
import { figures, loadAverage, median } from '../src/harness.ts';

const { values } = parseArgs({
  options: { spawns: { type: 'string', default: '200' }, rounds: { type: 'string', default: '5' } },
});
const spawns = Number(values.spawns);
const rounds = Number(values.rounds);

/** Bare child_process.spawn of `true`, its output piped as the runner's is, resolved at 'close'. */
const bare = () =>
  new Promise<void>((resolve, reject) => {
    const child = spawn('/usr/bin/true', [], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`true exited ${code}`))));
  });
const through = (runner: CommandRunner) => async () => {
  const r = await runner.run('true', []);
  if (r.exitCode !== 0) throw new Error(`true exited ${r.exitCode}`);
};

const sides: Array<{ name: string; once: () => Promise<void>; wallMs: number[]; cpuMs: number[] }> = [
  { name: 'bare child_process.spawn', once: bare, wallMs: [], cpuMs: [] },
  { name: 'CommandRunner (this checkout)', once: through(createCommandRunner()), wallMs: [], cpuMs: [] },
];
const before = process.env['BENCH_BEFORE'];
if (before) {
  const mod = (await import(path.resolve(before, 'packages/common/src/command.ts'))) as {
    createCommandRunner: typeof createCommandRunner;
  };
  sides.push({
    name: `CommandRunner (${path.basename(path.resolve(before))})`,
    once: through(mod.createCommandRunner()),
    wallMs: [],
    cpuMs: [],
  });
}

console.log(
  `spawn cost — Node ${process.version}, ${os.availableParallelism()} cores, load ${loadAverage()}; ${rounds} rounds of ${spawns} spawns of true per side`,
);
for (const side of sides) for (let i = 0; i < 20; i++) await side.once(); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const side of sides) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < spawns; i++) await side.once();
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    side.wallMs.push(wall / spawns);
    side.cpuMs.push((cpu.user + cpu.system) / 1000 / spawns);
  }
}

const ref = sides[0]!;
const us = (ms: number) => `${Math.round(ms * 1000)} µs`;
const ok = figures(
  `spawn cost, ${spawns} spawns of true × ${rounds} rounds, load ${loadAverage()}`,
  sides.map((side) => ({
    figure: `${side.name}, per spawn`,
    value: `${us(median(side.wallMs))} wall, ${us(median(side.cpuMs))} CPU`,
    target: '—',
    reference:
      side === ref
        ? `rounds ${side.wallMs.map(us).join(' / ')}`
        : `${(median(side.wallMs) / median(ref.wallMs)).toFixed(2)}× bare wall, ${(median(side.cpuMs) / median(ref.cpuMs)).toFixed(2)}× bare CPU; rounds ${side.wallMs.map(us).join(' / ')}`,
    pass: null,
  })),
);
process.exitCode = ok ? 0 : 1;
