// Benchmark of issue 35: start and stop of a 3-service stack through the service against
// docker-compose by hand, and GET /stacks with 50 stacks. Re-runs itself with the source condition so
// the workspace packages load from src/.
//   node tools/bench/stacks/run.ts [--rounds 5] [--stacks 50] [--gets 200]
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const bench = path.join(import.meta.dirname, 'bench.ts');
const r = spawnSync(process.execPath, ['--conditions=@appliance/source', bench, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exitCode = r.status ?? 1;
