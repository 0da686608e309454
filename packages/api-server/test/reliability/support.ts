/**
 * Shared helpers of the reliability suite (issue 9): the route registry as the server builds it,
 * a raw HTTP client for both listeners (streams are cut after the headers), valid-looking path
 * parameters, and a disk-free sandbox whose command runner refuses every disk-writing tool.
 */
import http from 'node:http';
import { AppError, type CommandRunner, createCommandRunner } from '@appliance/common';
import type { AppContext } from '../../src/context.ts';
import { allFeatures } from '../../src/features/index.ts';
import type { AnyRoute } from '../../src/http/route.ts';
import { Lockout, Passwords } from '@appliance/accounts';
import { createAuthenticator } from '../../src/features/session/deps.ts';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../test-support/sandbox.ts';

/** Every route of the server, in registration order (the same list the server and the API document use). */
export function registryRoutes(): AnyRoute[] {
  const auth = createAuthenticator({} as AppContext, new Passwords(), new Lockout());
  return allFeatures(auth, new Passwords(), 'reliability').flatMap((f) => f.routes);
}

export const routeId = (r: Pick<AnyRoute, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** `/shares/:name` → `/shares/{name}` (the OpenAPI key under /api/v1). */
export const openApiPath = (p: string) => `/api/v1${p.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;

export const SAMPLE_UUID = '3f2a6c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b';

/** A valid-looking value for each path parameter (the route's own vocabulary where it has one). */
export function sampleParam(routePath: string, name: string): string {
  if (routePath.startsWith('/templates/')) return 'jellyfin';
  if (routePath.startsWith('/catalog/sources/')) return 'lab';
  switch (name) {
    case 'id':
      return SAMPLE_UUID;
    case 'eventType':
      return 'disk_offline';
    case 'name':
      return 'media';
    case 'label':
      return 'backup1';
    default:
      return 'sample1';
  }
}

export function pathParams(routePath: string): string[] {
  return [...routePath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

/** The route path with its parameters replaced by `values(name)` (URL-encoded). */
export function fillPath(routePath: string, values: (name: string) => string): string {
  return routePath.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(values(name)));
}

export const samplePath = (r: Pick<AnyRoute, 'path'>) => fillPath(r.path, (n) => sampleParam(r.path, n));

/**
 * Issue 18's oracle, written apart from the server's `http/dot-segments.ts`: the registry routes
 * (as `/api/v1…` patterns) whose template matches a raw path segment by segment — a parameter
 * takes any non-empty segment, a static word must equal the percent-decoded segment, and a dot
 * segment (`.`/`..`, raw or `%2e` in either case) is only ever a parameter. HEAD is answered by
 * GET routes. Empty when no route may answer (404).
 */
export function routesMatchingRaw(routes: AnyRoute[], method: string, rawPath: string): string[] {
  const path = rawPath.split(/[?#]/)[0]!;
  const segs = path.split('/').slice(1);
  const dot = (x: string) => /^(?:\.|%2e){1,2}$/i.test(x);
  const decode = (x: string) => {
    try {
      return decodeURIComponent(x);
    } catch {
      return x;
    }
  };
  const m = method === 'HEAD' ? 'GET' : method;
  return routes
    .filter((r) => r.method === m)
    .map((r) => `/api/v1${r.path}`)
    .filter((pattern) => {
      const t = pattern.split('/').slice(1);
      return (
        t.length === segs.length &&
        t.every((w, i) => (w.startsWith(':') ? segs[i] !== '' : !dot(segs[i]!) && decode(segs[i]!) === w))
      );
    });
}

/**
 * Issue 25's oracle for a request no route of its method matches: the methods whose routes match
 * the raw path (405 with `Allow`), or `[]` (404). A raw path holding a dot segment is judged by
 * issue 18's rule first and stays 404.
 */
export function methodsMatchingRaw(routes: AnyRoute[], rawPath: string): string[] {
  const path = rawPath.split(/[?#]/)[0]!;
  if (path.split('/').some((x) => /^(?:\.|%2e){1,2}$/i.test(x))) return [];
  return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
    (m) => routesMatchingRaw(routes, m, rawPath).length > 0,
  );
}

/**
 * Sends one request and reads the route its log line names (the route that answered it, `(none)`
 * for a 404; `undefined` when the server logged no request, e.g. Node's parser refused it).
 */
export async function traced<T>(
  s: Sandbox,
  send: () => Promise<T>,
): Promise<T & { route: string | undefined }> {
  const from = s.logs.length;
  const res = await send();
  let route: string | undefined;
  for (const line of s.logs.slice(from)) {
    const parsed = JSON.parse(line) as { msg?: string; route?: string };
    if (parsed.msg === 'request') route = parsed.route;
  }
  return Object.assign(res as T & object, { route }) as T & { route: string | undefined };
}

export interface DotVariant {
  /** The route path (under /api/v1) with `param` replaced by `segment`, the others by sample values. */
  path: string;
  param: string;
  segment: string;
}

/** One path per (parameter, dot spelling) of a route: the parameter is a dot segment, the rest samples. */
export function dotVariants(r: Pick<AnyRoute, 'path'>, spellings: readonly string[]): DotVariant[] {
  const out: DotVariant[] = [];
  for (const param of pathParams(r.path))
    for (const segment of spellings)
      out.push({
        param,
        segment,
        path: r.path.replace(/:([A-Za-z0-9_]+)/g, (_m, n: string) =>
          n === param ? segment : encodeURIComponent(sampleParam(r.path, n)),
        ),
      });
  return out;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: unknown;
  contentType: string;
  bytes: Buffer;
}

export interface RawOptions {
  via?: 'tcp' | 'unix';
  headers?: Record<string, string>;
  /** A JSON value (sent with Content-Type application/json) … */
  json?: unknown;
  /** … or these exact bytes. */
  raw?: string | Uint8Array;
  /** Send the body chunked (no Content-Length), so that only the byte count can enforce the limit. */
  chunked?: boolean;
  /** Cut a streaming answer (text/event-stream) after the headers. Default true. */
  cutStreams?: boolean;
  /** Send `apiPath` as it is (by default a path not under /api/ is put under /api/v1). */
  asIs?: boolean;
}

/**
 * One request on either listener with node:http (no fetch normalisation: the path is sent as
 * given, so encoded traversal reaches the router unchanged). A text/event-stream answer is cut
 * after its headers.
 */
export function rawRequest(
  s: Sandbox,
  method: string,
  apiPath: string,
  o: RawOptions = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...o.headers };
  let payload: string | Uint8Array | undefined;
  if (o.raw !== undefined) payload = o.raw;
  else if (o.json !== undefined) {
    payload = JSON.stringify(o.json);
    headers['content-type'] ??= 'application/json';
  }
  if (payload !== undefined && !o.chunked) headers['content-length'] = String(Buffer.byteLength(payload));
  // Node's client chunks a body by default only for methods that usually carry one: a DELETE's
  // bytes would go out unframed (read by the server as the next request) unless asked explicitly.
  if (payload !== undefined && o.chunked) headers['transfer-encoding'] = 'chunked';
  const full = o.asIs || apiPath.startsWith('/api/') ? apiPath : `/api/v1${apiPath}`;
  const target =
    o.via === 'unix'
      ? { socketPath: s.socket }
      : { host: new URL(s.url).hostname, port: Number(new URL(s.url).port) };
  return new Promise((resolve, reject) => {
    const req = http.request({ ...target, method, path: full, headers, agent: false }, (res) => {
      const contentType = String(res.headers['content-type'] ?? '');
      if (o.cutStreams !== false && contentType.startsWith('text/event-stream')) {
        res.destroy();
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: '',
          body: null,
          contentType,
          bytes: Buffer.alloc(0),
        });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, contentType, bytes });
      });
    });
    req.on('error', reject);
    if (payload !== undefined && o.chunked) {
      const bytes = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload);
      for (let i = 0; i < bytes.length; i += 8192) req.write(bytes.subarray(i, i + 8192));
    } else if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Whether a body is the error body of 00 §3: `{code: snake_case, message: non-empty string}`. */
export function isErrorBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return (
    typeof b['code'] === 'string' &&
    /^[a-z][a-z0-9_]*$/.test(b['code']) &&
    typeof b['message'] === 'string' &&
    b['message'].length > 0 &&
    (b['details'] === undefined || (typeof b['details'] === 'object' && b['details'] !== null))
  );
}

/** Tools that write to disks or mounts: the suite's runner refuses them outright. */
export const DISK_WRITERS = new Set([
  'wipefs',
  'mkfs.xfs',
  'mkfs.ext4',
  'mkfs.btrfs',
  'mkfs.vfat',
  'sgdisk',
  'parted',
  'sfdisk',
  'mount',
  'umount',
  'xfs_admin',
  'tune2fs',
  'btrfs',
  'snapraid',
  'mergerfs',
  'dd',
]);

/** A real runner that refuses (and records) any disk-writing command. */
export function guardedRunner(): CommandRunner & { refused: string[] } {
  const real = createCommandRunner();
  const refused: string[] = [];
  return {
    refused,
    resolve: (command) => real.resolve(command),
    run(command, args, options) {
      const base = command.split('/').pop() ?? command;
      if (DISK_WRITERS.has(base)) {
        refused.push([command, ...args].join(' '));
        return Promise.reject(
          new AppError(409, 'reliability_guard', `The reliability suite refuses to run ${base}.`),
        );
      }
      return real.run(command, args, options);
    },
  };
}

/** A sandbox with no disks at all (empty inventory) and a runner that never writes a disk. */
export async function startDiskFreeSandbox(
  options: SandboxOptions = {},
): Promise<Sandbox & { refused: string[] }> {
  const runner = guardedRunner();
  const s = await startSandbox({
    ...options,
    start: {
      runner,
      inventory: { read: async () => ({ labMode: false, bootResolved: true, disks: [] }) },
      ...options.start,
    },
  });
  return Object.assign(s, { refused: runner.refused });
}

/** Statuses a route may answer with and still be "not a server failure". */
export function isServerFailure(status: number, body: unknown): boolean {
  if (status < 500) return false;
  // 501 not_configured / a missing tool and 503 too_busy are documented answers (00 §3, 08 §12).
  if (status === 501 || status === 503) {
    const code = (body as { code?: unknown } | null)?.code;
    return !(typeof code === 'string' && code !== 'internal');
  }
  return true;
}
