/**
 * Launcher of the backup benchmark (bench.ts): runs it under the same Node binary with the
 * `@appliance/source` condition, so the workspace packages resolve to their sources.
 *
 *   node tools/bench/backups/run.ts [--runs 2] [--data-mib 1024] [--files 10000]
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
