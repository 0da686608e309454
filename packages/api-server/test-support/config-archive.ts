/** Helpers of the config-archive system tests: raw requests over the socket or TCP, tree listings. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: test responses are inspected field by field
  json(): any;
}

export interface Target {
  socket?: string;
  url?: string;
  token?: string | null;
}

/** One request with a raw body (a Buffer, or chunks written in order). */
export function rawRequest(
  target: Target,
  method: string,
  p: string,
  body: Buffer | Buffer[],
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks = Array.isArray(body) ? body : [body];
    const all = { ...headers } as Record<string, string>;
    if (target.token) all['authorization'] = `Bearer ${target.token}`;
    all['content-length'] ??= String(chunks.reduce((n, c) => n + c.length, 0));
    const url = target.url ? new URL(`/api/v1${p}`, target.url) : null;
    const req = http.request(
      url
        ? { host: url.hostname, port: url.port, path: url.pathname, method, headers: all }
        : { socketPath: target.socket, path: `/api/v1${p}`, method, headers: all },
      (res) => {
        const out: Buffer[] = [];
        res.on('data', (c: Buffer) => out.push(c));
        res.on('end', () => {
          const buf = Buffer.concat(out);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: buf,
            json: () => JSON.parse(buf.toString('utf8')),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      // The server may answer and close before the whole body was sent (EPIPE/ECONNRESET).
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') return;
      reject(err);
    });
    (async () => {
      for (const c of chunks) {
        if (req.destroyed) return;
        if (!req.write(c)) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })().catch(() => undefined);
  });
}

/** Path, type, size, mode and SHA-256 of every entry under root except `skip` (-shm content excluded). */
export function treeListing(root: string, skip: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (skip.includes(p)) continue;
      const st = fs.lstatSync(p);
      const type = st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : st.isFile() ? 'f' : 'o';
      const hashed = st.isFile() && !p.endsWith('-shm') && !p.endsWith('-wal');
      const sha = hashed ? createHash('sha256').update(fs.readFileSync(p)).digest('hex') : '';
      out.push(
        `${path.relative(root, p)} ${type} ${st.isFile() && !p.endsWith('-wal') ? st.size : 0} ${(st.mode & 0o7777).toString(8)} ${sha}`,
      );
      if (type === 'd') walk(p);
    }
  };
  walk(root);
  return out;
}

export async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
