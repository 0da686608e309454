/**
 * Launcher of the watchers benchmark (bench.ts): runs it under the same Node binary with the
 * `@appliance/source` condition, so the workspace packages resolve to their sources.
 *
 *   node tools/bench/watchers/run.ts [--duration 60] [--disks 24]
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const bench = path.join(import.meta.dirname, 'bench.ts');
const child = spawnSync(
  process.execPath,
  ['--conditions=@appliance/source', bench, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
process.exit(child.status ?? 1);
