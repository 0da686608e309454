// Issue 9 load run: the real service (`appliance serve` as a child process, sandbox root, loopback)
// under a mixed workload driven by autocannon: reads (GET /users, /settings, /notifications/routing,
// one routing entry), routing PUTs, share permission PUTs when a share can be created (shares need
// an array, so a fresh box refuses them and they are left out, said so in the report), and template
// previews (against a private dockerd when one can be started; left out when refused).
// Figures: requests/s, errors (must be 0), non-2xx, and the server's RSS and open file descriptors
// sampled every second, the mean of the first 10 s against the last 10 s.
//   node tools/bench/load/run.ts [--duration 60] [--connections 64] [--warmup 120] [--no-docker] [--no-preview]
// The warm-up (same workload, same connections) lets V8 and SQLite reach their working set first, so
// the first-10-s/last-10-s comparison measures growth under steady load, not start-up. Two minutes:
// with 15–60 s the service's RSS still took an occasional step of ≈7 MiB while V8 sized its old
// space (docs/reliability.md, load run).
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { PrivateDockerd } from '@appliance/lab';
import autocannon from 'autocannon';
import { adminToken, report, startAppliance } from '../src/harness.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '64' },
    'no-docker': { type: 'boolean', default: false },
    'no-preview': { type: 'boolean', default: false },
    warmup: { type: 'string', default: '120' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const warmup = Number(values.warmup);

interface Sample {
  t: number;
  rssKiB: number;
  fds: number;
}

function sample(pid: number, t0: number): Sample {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN);
  const fds = fs.readdirSync(`/proc/${pid}/fd`).length;
  return { t: (performance.now() - t0) / 1000, rssKiB, fds };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

let dockerd: PrivateDockerd | null = null;
const notes: string[] = [];
if (!values['no-docker'] && !values['no-preview']) {
  try {
    const lab = await import('@appliance/lab');
    await lab.requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'docker-compose'] });
    dockerd = await lab.startPrivateDockerd();
    process.env['DOCKER_HOST'] = dockerd.host;
  } catch (e) {
    notes.push(
      `no private dockerd (${(e as Error).message.slice(0, 120)}): previews answer 503 and are left out`,
    );
  }
}

const app = await startAppliance();
try {
  const token = await adminToken(app.url);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const api = (p: string) => `${app.url}/api/v1${p}`;
  const probe = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(api(p), {
      method,
      headers: auth,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, body: (await r.json().catch(() => null)) as Record<string, unknown> | null };
  };

  type Req = autocannon.Request & { label: string };
  const requests: Req[] = [
    { label: 'GET /users', method: 'GET', path: '/api/v1/users' },
    { label: 'GET /settings', method: 'GET', path: '/api/v1/settings' },
    { label: 'GET /notifications/routing', method: 'GET', path: '/api/v1/notifications/routing' },
    {
      label: 'PUT /notifications/routing/disk_offline',
      method: 'PUT',
      path: '/api/v1/notifications/routing/disk_offline',
      body: JSON.stringify({ severity: 'critical', channelIds: [] }),
    },
    {
      label: 'GET /notifications/routing/disk_offline',
      method: 'GET',
      path: '/api/v1/notifications/routing/disk_offline',
    },
    {
      label: 'PUT /notifications/routing/smart_warning',
      method: 'PUT',
      path: '/api/v1/notifications/routing/smart_warning',
      body: JSON.stringify({ severity: 'warning', channelIds: [] }),
    },
  ];
  // The routing PUT must be accepted as written (a refused write would make the load meaningless).
  for (const r of requests.filter((x) => x.method === 'PUT')) {
    const p = await probe('PUT', r.path!.slice('/api/v1'.length), JSON.parse(r.body as string));
    if (p.status !== 200) {
      notes.push(`${r.label} refused (${p.status} ${JSON.stringify(p.body)}); left out`);
      requests.splice(requests.indexOf(r), 1);
    }
  }

  // Shares need an array: try, and keep the permission PUTs only when a share exists.
  const viewer = await probe('POST', '/users', {
    username: 'loadviewer',
    role: 'viewer',
    password: 'load pass 12345',
  });
  const share = await probe('POST', '/shares', { name: 'media' });
  if (share.status === 201 && viewer.status === 201) {
    const userId = (viewer.body as { id: string }).id;
    for (const access of ['read-only', 'read-write'])
      requests.push({
        label: `PUT /shares/media/permissions (${access})`,
        method: 'PUT',
        path: '/api/v1/shares/media/permissions',
        body: JSON.stringify({ users: [{ userId, access }], groups: [] }),
      });
  } else
    notes.push(
      `share permission PUTs left out: POST /shares answered ${share.status} ${share.body?.['code']}`,
    );

  const preview = values['no-preview']
    ? { status: 0, body: { code: 'left out by --no-preview' } }
    : await probe('POST', '/templates/jellyfin/preview', {});
  if (preview.status === 200)
    requests.push({
      label: 'POST /templates/jellyfin/preview',
      method: 'POST',
      path: '/api/v1/templates/jellyfin/preview',
      body: '{}',
    });
  else notes.push(`template previews left out: answered ${preview.status} ${preview.body?.['code']}`);

  const byLabel = new Map<string, { n: number; non2xx: number }>();
  for (const r of requests) {
    byLabel.set(r.label, { n: 0, non2xx: 0 });
    r.headers = auth;
    r.onResponse = (status: number) => {
      const c = byLabel.get(r.label)!;
      c.n++;
      if (status < 200 || status > 299) c.non2xx++;
    };
  }

  // Warm-up, then the measured run with a sample every second.
  await autocannon({ url: app.url, connections, duration: warmup, requests });
  for (const c of byLabel.values()) {
    c.n = 0;
    c.non2xx = 0;
  }
  const t0 = performance.now();
  const samples: Sample[] = [sample(app.pid, t0)];
  const timer = setInterval(() => samples.push(sample(app.pid, t0)), 1000);
  const result = await autocannon({ url: app.url, connections, duration, requests });
  clearInterval(timer);
  samples.push(sample(app.pid, t0));

  const window = Math.min(10, duration / 2);
  const first = samples.filter((x) => x.t <= window);
  const last = samples.filter((x) => x.t >= duration - window);
  const errors = result.errors + result.timeouts;
  report(`mixed workload, ${connections} connections, ${duration} s`, {
    'requests/s (mean)': result.requests.average,
    'requests (total)': result.requests.total,
    'latency p50 / p99 ms': `${result.latency.p50} / ${result.latency.p99}`,
    'errors + timeouts (must be 0)': errors,
    'non-2xx': result.non2xx,
  });
  report(
    'per request kind (count, non-2xx)',
    Object.fromEntries([...byLabel].map(([k, c]) => [k, `${c.n}, ${c.non2xx}`])),
  );
  const f = { rss: mean(first.map((x) => x.rssKiB)), fds: mean(first.map((x) => x.fds)) };
  const l = { rss: mean(last.map((x) => x.rssKiB)), fds: mean(last.map((x) => x.fds)) };
  report(`server process ${app.pid}: first ${window} s vs last ${window} s (${samples.length} samples)`, {
    'RSS MiB first / last': `${(f.rss / 1024).toFixed(1)} / ${(l.rss / 1024).toFixed(1)}`,
    'RSS growth %': ((l.rss - f.rss) / f.rss) * 100,
    'open fds first / last': `${f.fds.toFixed(1)} / ${l.fds.toFixed(1)}`,
    'open fds max': Math.max(...samples.map((x) => x.fds)),
  });
  report(
    'RSS MiB / open fds every 5 s',
    Object.fromEntries(
      samples
        .filter((_x, i) => i % 5 === 0)
        .map((x) => [`${Math.round(x.t)} s`, `${(x.rssKiB / 1024).toFixed(1)} / ${x.fds}`]),
    ),
  );
  if (notes.length) report('notes', Object.fromEntries(notes.map((n, i) => [`${i + 1}`, n])));
  if (errors > 0 || result.non2xx > 0) process.exitCode = 1;
} finally {
  await app.stop();
  await dockerd?.stop();
}
