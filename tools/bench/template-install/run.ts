// Benchmark of 02 §14 (issue 7): preview plan time, and install time with 200 existing stacks
// against install time with none, in one run. Re-runs itself with the source condition so the
// workspace packages load from src/.
//   node tools/bench/template-install/run.ts [--installs 50] [--stacks 200] [--plans 1000]
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const bench = path.join(import.meta.dirname, 'bench.ts');
const r = spawnSync(process.execPath, ['--conditions=@appliance/source', bench, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exitCode = r.status ?? 1;
