/**
 * What the archive benchmarks (config preview, config import) share: the real service in a fresh
 * sandbox root, requests over its Unix socket (an upload streamed from a file, a download into a
 * file), and the multipart body of an archive upload.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { serviceCli, startListening } from './harness.ts';

/**
 * The real service (`appliance serve`) in a fresh sandbox root, log level info (the shared
 * harness's startAppliance sets warn, which hides the "listening" line it waits for).
 */
export async function startArchiveService(name: string) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `appliance-bench-${name}-`));
  const socketDir = fs.mkdtempSync('/tmp/apb-');
  const socket = path.join(socketDir, 'a.sock');
  const cli = serviceCli();
  const c = await startListening([cli, '--root', root, '--listen', '127.0.0.1:0', '--socket', socket]);
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
export type ArchiveService = Awaited<ReturnType<typeof startArchiveService>>;

export function request(
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

/** A multipart body: the text parts, then the archive file streamed from disk. */
export function multipartAround(file: string, textParts: Record<string, string> = {}) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const texts = Object.entries(textParts)
    .map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    )
    .join('');
  return {
    head: Buffer.from(
      texts +
        `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="a.tar.zst"\r\nContent-Type: application/zstd\r\n\r\n`,
    ),
    file,
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

const MiB = 1024 * 1024;

/**
 * An installation (hostname `bench`, an admin, a custom Samba file, a stack) with `fillerMiB` of
 * random files under the catalog, exported without a passphrase to `out`.
 */
export async function makeArchive(fillerMiB: number, out: string): Promise<void> {
  const app = await startArchiveService('source');
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

/** The reference of both archive benchmarks, timed the same way: `zstd -dc FILE | sha256sum`. */
export function reference(file: string): Promise<number> {
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

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Reads the file once so that every timed run finds it in the page cache. */
export async function pageCache(file: string) {
  await pipeline(fs.createReadStream(file), fs.createWriteStream('/dev/null'));
}

/** Peak resident memory (VmHWM) of a process, in MiB. */
export function vmHwmMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

/**
 * The memory phase of both benchmarks: a freshly started service that serves only `run` on `file`;
 * its VmHWM idle (after 1 s) and after the request, and the request's time.
 */
export async function peakRss(
  name: string,
  file: string,
  run: (app: ArchiveService, file: string) => Promise<number>,
): Promise<{ hwm: number; idle: number; ms: number }> {
  await pageCache(file);
  const app = await startArchiveService(name);
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const idle = vmHwmMiB(app.pid);
    const ms = await run(app, file);
    return { hwm: vmHwmMiB(app.pid), idle, ms };
  } finally {
    await app.stop();
  }
}
