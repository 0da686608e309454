import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { HOST_PATH } from '@appliance/common';
import type { Config } from '../src/config.ts';
import type { Hooks } from '../src/context.ts';
import { createLogger } from '../src/logger.ts';
import { type RunningServer, type StartOptions, startServer } from '../src/server.ts';
import { manualTimers } from '@appliance/watchers';

export interface SandboxOptions {
  /** Lab mode (loop devices listed as disks). */
  lab?: boolean;
  /** Create the admin and an admin token (default true). */
  admin?: boolean;
  /** Reuse a root (restart tests). */
  root?: string;
  /** Read host facts (sysfs, /dev, /proc, /etc/group) from this directory instead of the host. */
  hostRoot?: string;
  hooks?: Partial<Hooks>;
  /** Server start options; the watchers run on `manualTimers` unless `start.watcherTimers` says otherwise. */
  start?: Partial<Omit<StartOptions, 'config' | 'hooks'>>;
  config?: Partial<Config>;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** Send this exact body text instead of JSON. */
  raw?: string | Uint8Array;
  via?: 'tcp' | 'unix';
}

export interface Sandbox {
  root: string;
  server: RunningServer;
  url: string;
  socket: string;
  /** Admin token (when `admin` was not false). */
  token: string;
  adminPassword: string;
  /** Every log line the server wrote. */
  logs: string[];
  call<T = any>(
    method: string,
    apiPath: string,
    body?: unknown,
    options?: CallOptions,
  ): Promise<ApiResponse<T>>;
  /** A JSON dump of every table (for "nothing was written" assertions). */
  dumpDatabase(): string;
  close(options?: { keepRoot?: boolean }): Promise<void>;
}

export const ADMIN_PASSWORD = 'correct horse battery';

/**
 * Starts the real server in-process on loopback TCP (port 0, plain HTTP) and a Unix socket, inside
 * a fresh sandbox root, and optionally creates the admin and an admin token through the API.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const root = options.root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-sbx-'));
  const socketDir = fs.mkdtempSync('/tmp/aps-');
  const socket = path.join(socketDir, 'appliance.sock');
  const logs: string[] = [];
  const config: Config = {
    root,
    hostRoot: options.hostRoot ?? '',
    configFile: path.join(root, 'etc/appliance/config.toml'),
    listen: { host: '127.0.0.1', port: 0 },
    tls: 'off',
    tlsCert: null,
    tlsKey: null,
    socket,
    lab: { enabled: options.lab ?? false, imageDir: null },
    samba: { sandbox: false, port: 4450 },
    logLevel: 'info',
    toolPath: HOST_PATH,
    ...options.config,
  };
  const server = await startServer({
    config,
    logger: createLogger((line) => logs.push(line)),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    // uses are stored at close only: read-only proofs compare the database between two requests
    tokenUsageFlushMs: null,
    // Watcher cycles run only when a test drives them (ctx.watchers.runOnce): no test sleeps for
    // an interval, and no watcher raises behind another test's back.
    watcherTimers: manualTimers,
    ...options.start,
  });
  const url = server.url!;
  const call = async <T>(
    method: string,
    apiPath: string,
    body?: unknown,
    o: CallOptions = {},
  ): Promise<ApiResponse<T>> => {
    // A connection per call: a request sent on a kept-alive socket just as the server's idle timeout
    // closes it fails before the server sees it (tests pause longer than 5 s between calls).
    const headers: Record<string, string> = { connection: 'close', ...o.headers };
    const token = o.token === undefined ? sandbox.token : o.token;
    if (token) headers['authorization'] ??= `Bearer ${token}`;
    let payload: string | Uint8Array | undefined;
    if (o.raw !== undefined) payload = method === 'GET' || method === 'HEAD' ? undefined : o.raw;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const full = apiPath.startsWith('/api/') ? apiPath : `/api/v1${apiPath}`;
    if (o.via === 'unix') return unixRequest<T>(socket, method, full, headers, payload);
    const res = await fetch(`${url}${full}`, {
      method,
      headers,
      ...(payload !== undefined ? { body: payload } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: parse(text) as T, text, headers: res.headers };
  };
  const sandbox: Sandbox = {
    root,
    server,
    url,
    socket,
    token: '',
    adminPassword: ADMIN_PASSWORD,
    logs,
    call,
    dumpDatabase: () => dumpDatabase(server),
    async close(o = {}) {
      await server.close();
      fs.rmSync(socketDir, { recursive: true, force: true });
      if (!o.keepRoot && !options.root) removeSandboxRoot(root);
    },
  };
  if (options.admin !== false) {
    const admin = await call(
      'POST',
      '/setup/admin',
      { username: 'admin', password: ADMIN_PASSWORD },
      { token: null },
    );
    if (admin.status !== 201 && admin.status !== 409)
      throw new Error(`admin create failed: ${admin.status} ${admin.text}`);
    const basic = Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64');
    const tok = await call<{ token: string }>(
      'POST',
      '/tokens',
      { name: 'test', role: 'admin' },
      { token: null, headers: { authorization: `Basic ${basic}` } },
    );
    if (tok.status !== 201) throw new Error(`token create failed: ${tok.status} ${tok.text}`);
    sandbox.token = tok.body.token;
  }
  return sandbox;
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

function unixRequest<T>(
  socketPath: string,
  method: string,
  p: string,
  headers: Record<string, string>,
  payload?: string | Uint8Array,
): Promise<ApiResponse<T>> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, method, path: p, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const h = new Headers();
        for (const [k, val] of Object.entries(res.headers)) if (typeof val === 'string') h.set(k, val);
        resolve({ status: res.statusCode ?? 0, body: parse(text) as T, text, headers: h });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * Every user table as sorted JSON rows (BLOBs as hex), for "nothing written" checks. Leaves out
 * `api_tokens.last_used_at`: the uses of tokens noted in memory are stored when a server closes
 * (@appliance/accounts' token-usage.ts), so a restart on the same root changes it whatever was asked.
 */
export function dumpDatabase(server: RunningServer): string {
  const sqlite = server.ctx.sqlite;
  const tables = sqlite
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
    .all() as Array<{ name: string }>;
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    const rows = sqlite.prepare(`select * from "${name}"`).all() as Array<Record<string, unknown>>;
    if (name === 'api_tokens') for (const r of rows) delete r['last_used_at'];
    out[name] = rows
      .map((r) => JSON.stringify(r, (_k, val) => (Buffer.isBuffer(val) ? `hex:${val.toString('hex')}` : val)))
      .sort();
  }
  return JSON.stringify(out, null, 1);
}

/**
 * Removes a sandbox root whose array mountpoints the service made immutable (`chattr +i`, issue
 * 32): the flag comes off the directories under `<root>/mnt` (and `mnt/.staging`) first. Whatever
 * is still mounted there stays (the removal then fails, as it should).
 */
export function removeSandboxRoot(root: string): void {
  for (const dir of [path.join(root, 'mnt'), path.join(root, 'mnt', '.staging')]) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name === 'user' || name === '.staging') continue;
      try {
        execFileSync('chattr', ['-i', path.join(dir, name)], { stdio: 'ignore' });
      } catch {
        // not a directory with the flag, or a filesystem without it
      }
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
}
