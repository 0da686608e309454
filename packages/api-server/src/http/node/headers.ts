/**
 * `LightHeaders`: the Fetch `Headers` the service's own HTTP adapter uses (listener.ts), without
 * loading undici (docs/decisions/performance.md, "The web globals"). It keeps what the Fetch
 * standard keeps: lower-case names, values trimmed of HTTP whitespace, a repeated name combined with
 * ", " (`Set-Cookie` kept apart, getSetCookie()), iteration sorted by name, and a TypeError for a
 * name that is not a token or a value holding NUL, CR or LF.
 *
 * A request's headers are a view over Node's `IncomingMessage.headers` (no copy on the hot path,
 * where a route reads one or two of them); the first change copies them.
 */
type Init = LightHeaders | Iterable<readonly [string, string]> | Record<string, string | readonly string[]>;

/** An HTTP token (RFC 9110 §5.6.2): a header name, a method. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_VALUE = /[\0\r\n]/;

function checkName(name: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`Headers: "${name}" is not a valid header name`);
  return name.toLowerCase();
}

function normalizeValue(name: string, value: unknown): string {
  const text = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (FORBIDDEN_VALUE.test(text)) throw new TypeError(`Headers: the value of "${name}" is not valid`);
  return text;
}

/** Node's header object: lower-case names; a value is a string, or an array for Set-Cookie. */
export type NodeHeaderObject = Record<string, string | string[] | undefined>;

export class LightHeaders {
  /** Lower-case name → combined value (Set-Cookie: in #cookies). */
  #map: Map<string, string> | null = null;
  #cookies: string[] = [];
  /** A request's headers as Node parsed them, read until the first change. */
  #node: NodeHeaderObject | null = null;

  constructor(init?: Init | null) {
    if (init === undefined || init === null) return;
    if (init instanceof LightHeaders) {
      if (init.#node) this.#node = init.#node;
      else {
        this.#map = new Map(init.#map);
        this.#cookies = [...init.#cookies];
      }
      return;
    }
    if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly [string, string]>) {
        if (pair.length !== 2) throw new TypeError('Headers: each pair must hold a name and a value');
        this.append(pair[0], pair[1]);
      }
      return;
    }
    if (typeof init !== 'object') throw new TypeError('Headers: init must be an object or pairs');
    for (const name of Object.keys(init)) {
      const value = (init as Record<string, string | readonly string[]>)[name]!;
      if (Array.isArray(value)) for (const v of value) this.append(name, v);
      else this.append(name, value as string);
    }
  }

  /** The headers Node parsed for a request, without copying them. */
  static fromNode(headers: NodeHeaderObject): LightHeaders {
    const h = new LightHeaders();
    h.#node = headers;
    return h;
  }

  /** The parsed request headers become this object's own (before the first change). */
  #own(): Map<string, string> {
    if (this.#map) return this.#map;
    this.#map = new Map();
    const node = this.#node;
    this.#node = null;
    if (node)
      for (const name of Object.keys(node)) {
        const value = node[name];
        if (value === undefined) continue;
        if (name === 'set-cookie') this.#cookies.push(...(Array.isArray(value) ? value : [value]));
        else this.#map.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
    return this.#map;
  }

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (this.#node) {
      const value = this.#node[key];
      if (value === undefined) {
        checkName(name);
        return null;
      }
      return Array.isArray(value) ? value.join(', ') : value;
    }
    if (key === 'set-cookie') return this.#cookies.length ? this.#cookies.join(', ') : null;
    const value = this.#map?.get(key);
    if (value !== undefined) return value;
    checkName(name);
    return null;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  set(name: string, value: string): void {
    const key = checkName(name);
    const v = normalizeValue(name, value);
    const map = this.#own();
    if (key === 'set-cookie') this.#cookies = [v];
    else map.set(key, v);
  }

  append(name: string, value: string): void {
    const key = checkName(name);
    const v = normalizeValue(name, value);
    const map = this.#own();
    if (key === 'set-cookie') this.#cookies.push(v);
    else {
      const before = map.get(key);
      map.set(key, before === undefined ? v : `${before}, ${v}`);
    }
  }

  delete(name: string): void {
    const key = checkName(name);
    const map = this.#own();
    if (key === 'set-cookie') this.#cookies = [];
    else map.delete(key);
  }

  getSetCookie(): string[] {
    this.#own();
    return [...this.#cookies];
  }

  /** Sorted by name, each Set-Cookie apart, as the standard iterates. */
  *entries(): IterableIterator<[string, string]> {
    const map = this.#own();
    const names = [...map.keys()];
    if (this.#cookies.length) names.push('set-cookie');
    names.sort();
    for (const name of names) {
      if (name === 'set-cookie') for (const c of this.#cookies) yield [name, c];
      else yield [name, map.get(name)!];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }

  forEach(callback: (value: string, name: string, headers: LightHeaders) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  /**
   * The headers as `ServerResponse.writeHead` takes them (names as stored, Set-Cookie as an array),
   * and whether a Content-Length is among them. No sorting: this is the response's hot path.
   */
  toNode(): { headers: Record<string, string | string[]>; hasLength: boolean } {
    const map = this.#own();
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of map) headers[k] = v;
    if (this.#cookies.length) headers['set-cookie'] = [...this.#cookies];
    return { headers, hasLength: map.has('content-length') };
  }
}
