/**
 * `LightResponse`: the Fetch `Response` Hono builds its answers with in the service's process
 * (globals.ts), without undici. The adapter (listener.ts) writes its body straight to Node's
 * `ServerResponse`: a string or bytes in one `end()`, a stream chunk by chunk.
 */
import { extractBody, LightBody } from './body.ts';
import { LightHeaders } from './headers.ts';

export interface LightResponseInit {
  status?: number;
  statusText?: string;
  headers?: ConstructorParameters<typeof LightHeaders>[0];
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

export class LightResponse extends LightBody {
  readonly status: number;
  readonly statusText: string;
  readonly headers: LightHeaders;
  readonly type: string = 'default';
  readonly url: string = '';
  readonly redirected = false;

  constructor(body?: unknown, init: LightResponseInit = {}) {
    const status = init.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599)
      throw new RangeError(`Response: status ${status} is outside 200-599`);
    const { source, type } = extractBody(body);
    if (source !== null && NULL_BODY_STATUS.has(status))
      throw new TypeError(`Response: a ${status} response cannot have a body`);
    super(source);
    this.status = status;
    this.statusText = init.statusText ?? '';
    this.headers = new LightHeaders(init.headers);
    if (type && !this.headers.has('content-type')) this.headers.set('content-type', type);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  clone(): LightResponse {
    const theirs = this.splitBody();
    const copy = new LightResponse(null, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
    copy.replaceBody(theirs);
    return copy;
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  static json(data: unknown, init: LightResponseInit = {}): LightResponse {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError('Response.json: the value cannot be serialised');
    const headers = new LightHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LightResponse(text, { ...init, headers });
  }

  static redirect(url: string | URL, status = 302): LightResponse {
    if (!REDIRECT_STATUS.has(status))
      throw new RangeError(`Response.redirect: ${status} is not a redirect status`);
    return new LightResponse(null, { status, headers: { location: new URL(url).href } });
  }

  static error(): never {
    throw new TypeError('Response.error() has no meaning on this server');
  }
}
