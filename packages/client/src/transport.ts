import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { ConnectionError } from './errors.ts';

export const API_PREFIX = '/api/v1';
export const DEFAULT_SOCKET = '/run/appliance/appliance.sock';

/** Where and how to reach the service. Exactly one of `socket` and `url`. */
export interface ClientOptions {
  /** Path of the service's Unix socket: the caller acts as the local administrator. */
  socket?: string;
  /** `https://host:port` (or `http://` on loopback): needs `token`. */
  url?: string;
  /** Personal API token `apat_…`, sent as `Authorization: Bearer` (TCP only). */
  token?: string;
  /** PEM certificate(s) to trust for `https://` besides the system's (e.g. the box's self-signed one). */
  ca?: string | Buffer;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export interface RawRequest {
  method: string;
  /** Path under `/api/v1`, with the query string, already encoded. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | Readable;
  signal?: AbortSignal | undefined;
}

const UNREACHABLE = new Set([
  'ENOENT',
  'ECONNREFUSED',
  'EACCES',
  'EPERM',
  'ENOTSOCK',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** One HTTP exchange over the socket or TCP; resolves with the response head (body unread). */
export function send(options: ClientOptions, req: RawRequest): Promise<http.IncomingMessage> {
  const target = describeTarget(options);
  const headers: Record<string, string> = { ...options.headers, ...req.headers };
  let transport: typeof http | typeof https = http;
  let requestOptions: https.RequestOptions;
  if (options.socket !== undefined) {
    requestOptions = { socketPath: options.socket, path: `${API_PREFIX}${req.path}`, host: 'localhost' };
  } else if (options.url !== undefined) {
    const base = new URL(options.url);
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new TypeError(`url must be http:// or https://, not ${base.protocol}`);
    transport = base.protocol === 'https:' ? https : http;
    const prefix = base.pathname.replace(/\/+$/, '');
    requestOptions = {
      protocol: base.protocol,
      hostname: base.hostname.replace(/^\[|\]$/g, ''),
      port: base.port || (base.protocol === 'https:' ? 443 : 80),
      path: `${prefix}${API_PREFIX}${req.path}`,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
    };
    if (options.token) headers['authorization'] ??= `Bearer ${options.token}`;
  } else {
    throw new TypeError('give the client a socket path or a url');
  }
  return new Promise((resolve, reject) => {
    const r = transport.request({
      ...requestOptions,
      method: req.method,
      headers,
      ...(req.signal ? { signal: req.signal } : {}),
    });
    r.once('response', resolve);
    r.once('error', (err: NodeJS.ErrnoException) => {
      if (err.name === 'AbortError') return reject(err);
      const code = err.code ?? 'EIO';
      if (UNREACHABLE.has(code)) {
        reject(
          new ConnectionError(
            target,
            code,
            options.socket !== undefined
              ? `Cannot reach the appliance service at ${target} (${code}). Is it running, and may you open its socket?`
              : `Cannot reach the appliance service at ${target} (${code}). Is the address right and the service running?`,
          ),
        );
      } else if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
        reject(
          new ConnectionError(
            target,
            code,
            `The TLS certificate of ${target} does not name this host (${err.message}): use an address the certificate names (the generated one names the box's host name, "appliance" and the addresses it had when it was made), or give the service a certificate for this address.`,
          ),
        );
      } else if (/CERT|VERIFY|SELF_SIGNED|TLS|SSL/.test(code)) {
        reject(
          new ConnectionError(
            target,
            code,
            `The TLS certificate of ${target} is not trusted (${code}): pass the box's certificate as the CA (--ca PATH).`,
          ),
        );
      } else reject(err);
    });
    if (req.body === undefined) r.end();
    else if (Buffer.isBuffer(req.body)) r.end(req.body);
    else {
      req.body.once('error', (err) => r.destroy(err));
      req.body.pipe(r);
    }
  });
}

export function describeTarget(options: ClientOptions): string {
  return options.socket ?? options.url ?? '(nowhere)';
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}
