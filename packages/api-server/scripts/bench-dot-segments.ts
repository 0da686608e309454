/**
 * Cost of the dot-segment judgement (src/http/dot-segments.ts) per request, on the registry's
 * routes. Run from packages/api-server under Node 24:
 *   node --conditions=@appliance/source scripts/bench-dot-segments.ts
 */
import { API_PREFIX } from '../src/http/app.ts';
import { DotSegmentRouter } from '../src/http/dot-segments.ts';
import { registryRoutes } from '../test/reliability/support.ts';

const router = new DotSegmentRouter(registryRoutes(), API_PREFIX);

function bench(name: string, targets: string[], n: number): void {
  // Fresh (non-internalised) strings, as the HTTP parser hands them over.
  const owned = targets.map((t) => ` ${t}`.slice(1));
  let hits = 0;
  let ns = 0;
  for (let round = 0; round < 3; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (router.judge('PUT', owned[i % owned.length]!) !== undefined) hits++;
    ns = Number(process.hrtime.bigint() - t0) / n;
  }
  console.log(`${name}: ${ns.toFixed(1)} ns per request (${hits > 0 ? 'judged' : 'left to routing'})`);
}

bench(
  'the benchmarked routes (no "." or "%")',
  [
    '/api/v1/notifications/routing/disk_offline',
    '/api/v1/shares/media/permissions',
    '/api/v1/users/3f2a6c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b',
  ],
  5_000_000,
);
bench(
  'a "." or "%" but no dot segment',
  ['/api/v1/shares/me%20dia/permissions', '/api/v1/audit?limit=1.5'],
  1_000_000,
);
bench('a dot segment', ['/api/v1/shares/%2e%2e/permissions'], 1_000_000);
