// Issue 2 benchmark: server cold start to first answered request, and requests per second of an
// authenticated GET (GET /api/v1/users with a Bearer token, looked up on every request) against a
// bare Hono hello-world, measured side by side in one run. Target: ≥ 30% of hello-world.
//   node tools/bench/api/run.ts [--duration 10] [--connections 32]
import { parseArgs } from 'node:util';
import { adminToken, load, report, startAppliance, startHelloWorld } from '../src/harness.ts';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

const cold: number[] = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const a = await startAppliance();
  const r = await fetch(`${a.url}/api/v1/setup/status`);
  if (r.status !== 200) throw new Error('no answer');
  cold.push(performance.now() - t0);
  await a.stop();
}

const hello = await startHelloWorld();
const app = await startAppliance();
try {
  const token = await adminToken(app.url);
  await load({ url: hello.url, duration: 2, connections }); // warm-up
  await load({
    url: `${app.url}/api/v1/users`,
    headers: { authorization: `Bearer ${token}` },
    duration: 2,
    connections,
  });
  const base = await load({ url: hello.url, duration, connections });
  const ours = await load({
    url: `${app.url}/api/v1/users`,
    headers: { authorization: `Bearer ${token}` },
    duration,
    connections,
  });
  report('cold start (spawn → first answered request), 3 runs', {
    'median ms': cold.sort((a, b) => a - b)[1]!,
    'all ms': cold.map(Math.round).join(', '),
  });
  report(
    `authenticated GET /api/v1/users vs bare Hono hello-world (${connections} connections, ${duration}s each)`,
    {
      'hello-world req/s': base.rps,
      'appliance req/s': ours.rps,
      'ratio (target ≥ 0.30)': ours.rps / base.rps,
      'appliance p50 / p99 ms': `${ours.p50} / ${ours.p99}`,
      'errors + non-2xx': ours.errors + ours.non2xx,
    },
  );
  if (ours.errors + ours.non2xx > 0) process.exitCode = 1;
} finally {
  await app.stop();
  await hello.stop();
}
