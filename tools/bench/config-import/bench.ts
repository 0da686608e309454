/**
 * Issue 16 benchmark (08 §14): the config import of the real service, uploaded over its Unix
 * socket into a fresh box, against `zstd -dc archive.tar.zst | sha256sum` in the same run.
 *
 * - Time: an installation's export with ~200 MiB of incompressible filler under the catalog (no
 *   passphrase), imported into a freshly started server each run (the restore-a-new-box case; a
 *   box that already holds a large catalog also exports it first, as its pre-import archive).
 *   Archive in the page cache, one warm-up, then the median of N runs; timed at the client from
 *   the first byte sent to the last byte received. Target ≤ 2.5×.
 * - Memory: a ~500 MiB archive imported by a freshly started server that serves only this request;
 *   its VmHWM (peak RSS) must stay under 200 MiB.
 *
 * Exits non-zero on a miss.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { report, serviceCli, startListening } from '../src/harness.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'time-mib': { type: 'string', default: '200' },
    'memory-mib': { type: 'string', default: '500' },
  },
});
const RUNS = Number(values.runs);
const MiB = 1024 * 1024;

/**
 * The real service (`appliance serve`) in a fresh sandbox root, log level info (the shared
 * harness's startAppliance sets warn, which hides the "listening" line it waits for).
 */
async function startAppliance() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-bench-import-'));
  const socketDir = fs.mkdtempSync('/tmp/api-');
  const socket = path.join(socketDir, 'a.sock');
  const cli = serviceCli();
  const c = await startListening([
    cli,
    'serve',
    '--root',
    root,
    '--listen',
    '127.0.0.1:0',
    '--socket',
    socket,
  ]);
  return {
    ...c,
    root,
    socket,
    stop: async () => {
      await c.stop();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
type App = Awaited<ReturnType<typeof startAppliance>>;

function request(
  socket: string,
  method: string,
  p: string,
  body?: { head: Buffer; file?: string; tail: Buffer; contentType: string },
  sink?: fs.WriteStream,
) {
  return new Promise<{ status: number; text: string; ms: number }>((resolve, reject) => {
    const size = body
      ? body.head.length + (body.file ? fs.statSync(body.file).size : 0) + body.tail.length
      : 0;
    const headers: Record<string, string> = body
      ? { 'content-type': body.contentType, 'content-length': String(size) }
      : {};
    let t0 = 0;
    const req = http.request({ socketPath: socket, method, path: `/api/v1${p}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      if (sink && res.statusCode === 200) res.pipe(sink);
      else res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString(),
          ms: performance.now() - t0,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    t0 = performance.now();
    if (!body) return void req.end();
    req.write(body.head);
    if (!body.file) return void req.end(body.tail);
    const rs = fs.createReadStream(body.file, { highWaterMark: 1024 * 1024 });
    rs.on('error', reject);
    rs.pipe(req, { end: false });
    rs.on('end', () => req.end(body.tail));
  });
}

function multipartAround(file: string) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  return {
    head: Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="confirmation"\r\n\r\nRESTORE bench\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="a.tar.zst"\r\nContent-Type: application/zstd\r\n\r\n`,
    ),
    file,
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** An installation with some configuration and `fillerMiB` of random files under the catalog, exported to `out`. */
async function makeArchive(fillerMiB: number, out: string): Promise<void> {
  const app = await startAppliance();
  try {
    const etc = path.join(app.root, 'etc/appliance/samba');
    fs.mkdirSync(etc, { recursive: true });
    fs.writeFileSync(path.join(etc, 'media.custom.conf'), 'veto files = /.DS_Store/\n');
    const stack = path.join(app.root, 'var/lib/appliance/stacks/web');
    fs.mkdirSync(stack, { recursive: true });
    fs.writeFileSync(path.join(stack, 'docker-compose.yml'), 'services:\n  web:\n    image: nginx\n');
    fs.writeFileSync(path.join(stack, 'meta.json'), '{}\n');
    const filler = path.join(app.root, 'var/lib/appliance/catalog/filler/blobs');
    fs.mkdirSync(filler, { recursive: true });
    for (let i = 0, left = fillerMiB; left > 0; i++, left -= 8) {
      fs.writeFileSync(
        path.join(filler, `blob-${String(i).padStart(3, '0')}.bin`),
        randomBytes(Math.min(8, left) * MiB),
      );
    }
    const admin = await request(app.socket, 'POST', '/setup/admin', {
      head: Buffer.from(JSON.stringify({ username: 'admin', password: 'bench password 1' })),
      tail: Buffer.alloc(0),
      contentType: 'application/json',
    });
    if (admin.status !== 201) throw new Error(`admin: ${admin.status} ${admin.text}`);
    const settings = await request(app.socket, 'PUT', '/settings', {
      head: Buffer.from(JSON.stringify({ hostname: 'bench', timezone: 'UTC' })),
      tail: Buffer.alloc(0),
      contentType: 'application/json',
    });
    if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${settings.text}`);
    const sink = fs.createWriteStream(out);
    const r = await request(app.socket, 'POST', '/config/export', undefined, sink);
    if (r.status !== 200) throw new Error(`export: ${r.status} ${r.text}`);
    await new Promise<void>((resolve) => (sink.closed ? resolve() : sink.once('close', () => resolve())));
  } finally {
    await app.stop();
  }
}

async function importInto(app: App, file: string) {
  const r = await request(app.socket, 'POST', '/config/import', multipartAround(file));
  if (r.status !== 200) throw new Error(`import: ${r.status} ${r.text.slice(0, 300)}`);
  return r.ms;
}

/** One import into a freshly started box (its start is not timed). */
async function freshImport(file: string) {
  const app = await startAppliance();
  try {
    return await importInto(app, file);
  } finally {
    await app.stop();
  }
}

function reference(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('sh', ['-c', 'zstd -q -dc "$1" | sha256sum > /dev/null', 'sh', file], {
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`zstd | sha256sum exited ${code}`)),
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function pageCache(file: string) {
  await pipeline(fs.createReadStream(file), fs.createWriteStream('/dev/null'));
}

function vmHwmMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-config-import-'));
let failed = false;
try {
  // ── time ──
  const timeArchive = path.join(work, 'time.tar.zst');
  await makeArchive(Number(values['time-mib']), timeArchive);
  await pageCache(timeArchive);
  let ours: number[] = [];
  let ref: number[] = [];
  await freshImport(timeArchive); // warm-up
  await reference(timeArchive);
  for (let i = 0; i < RUNS; i++) {
    ours.push(await freshImport(timeArchive));
    ref.push(await reference(timeArchive));
  }
  const ratio = median(ours) / median(ref);
  report(
    `import of a ${(fs.statSync(timeArchive).size / MiB).toFixed(1)} MiB archive into a fresh box over the Unix socket vs zstd -dc | sha256sum (median of ${RUNS})`,
    {
      'import ms (median)': median(ours),
      'zstd -dc | sha256sum ms (median)': median(ref),
      'ratio (target ≤ 2.5)': ratio,
      'import runs ms': ours.map(Math.round).join(', '),
      'reference runs ms': ref.map(Math.round).join(', '),
    },
  );
  if (!(ratio <= 2.5)) failed = true;
  fs.rmSync(timeArchive);
  ours = [];
  ref = [];

  // ── memory ──
  const memArchive = path.join(work, 'memory.tar.zst');
  await makeArchive(Number(values['memory-mib']), memArchive);
  await pageCache(memArchive);
  const fresh = await startAppliance();
  let hwm = 0;
  let ms = 0;
  let idle = 0;
  try {
    await new Promise((r) => setTimeout(r, 1000));
    idle = vmHwmMiB(fresh.pid);
    ms = await importInto(fresh, memArchive);
    hwm = vmHwmMiB(fresh.pid);
  } finally {
    await fresh.stop();
  }
  report(
    `peak RSS of a fresh server importing a ${(fs.statSync(memArchive).size / MiB).toFixed(1)} MiB archive`,
    {
      'VmHWM MiB (target < 200)': hwm,
      'VmHWM MiB of the idle server before the request': idle,
      'growth of the peak during the import MiB': hwm - idle,
      'import ms': ms,
    },
  );
  if (!(hwm < 200)) failed = true;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
if (failed) {
  console.log('\nMISS: a target was not met.');
  process.exitCode = 1;
}
