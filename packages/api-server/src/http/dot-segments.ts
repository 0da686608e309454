/**
 * Dot segments in the path the client sent (issue 18; docs/decisions/http.md).
 *
 * @hono/node-server builds each Request's URL with `new URL()`, which resolves `.` and `..`
 * segments (and their percent-encoded spellings) before Hono routes: `PUT /shares/./permissions`
 * was answered by `PUT /shares/:name` for a share named `permissions`. So every request is first
 * judged on its raw target (`IncomingMessage.url`, as it came off the wire, on the TCP listener and
 * on the Unix socket alike):
 *   - no dot segment (the hot path: `includes('.')` and `includes('%')`) → Hono's routing stands;
 *   - dot segments that all stand where a registered template of the request's method has a
 *     parameter (the rest of the raw segments matching the template) → that route, and no other,
 *     answers; its checks run in their usual order and step 6 refuses the parameters with
 *     `400 bad_request` naming them (`details.issues[].path`), as for any bad path parameter;
 *   - otherwise → `404 not_found`.
 */
import { type AppError, badRequest } from '@appliance/common';
import type { AnyRoute } from './route.ts';

/** The route the raw segments match, and the parameters that hold a dot segment (template order). */
export interface DotSegmentMatch {
  route: AnyRoute;
  params: string[];
}

/**
 * `undefined`: the raw path has no dot segment (route as usual). `null`: it has one and no template
 * matches it with the dot segments as parameters (404). Otherwise the route that must answer.
 */
export type DotSegmentVerdict = DotSegmentMatch | null | undefined;

interface Template {
  route: AnyRoute;
  /** Raw-path segments after the leading `/`: a static word, or `null` for a parameter. */
  segments: Array<string | null>;
  /** Parameter names by segment index. */
  names: Array<string | null>;
}

/** `%2e` / `%2E` at `i`. */
const encodedDot = (s: string, i: number): boolean =>
  s.charCodeAt(i) === 37 && s.charCodeAt(i + 1) === 50 && (s.charCodeAt(i + 2) | 0x20) === 101;

/**
 * Whether one raw segment is a dot segment as the WHATWG URL parser reads it: `.` or `%2e`, and
 * `..`, `.%2e`, `%2e.` or `%2e%2e`, the escape in either letter case. Nothing else (`...`,
 * `%252e`, `.%2f`) is resolved by the parser, so nothing else is one.
 */
export function isDotSegment(seg: string): boolean {
  switch (seg.length) {
    case 1:
      return seg === '.';
    case 2:
      return seg === '..';
    case 3:
      return encodedDot(seg, 0);
    case 4:
      return (
        (seg.charCodeAt(0) === 46 && encodedDot(seg, 1)) || (encodedDot(seg, 0) && seg.charCodeAt(3) === 46)
      );
    case 6:
      return encodedDot(seg, 0) && encodedDot(seg, 3);
    default:
      return false;
  }
}

/**
 * The path of a request target as sent, without query or fragment: origin-form (`/p?q`) or
 * absolute-form (`http://host/p?q`). `''` for anything else (`*`), which has no segments.
 */
export function rawPathOf(target: string): string {
  let start = 0;
  if (target.charCodeAt(0) !== 47) {
    const scheme = target.indexOf('://');
    if (scheme < 0) return '';
    start = target.indexOf('/', scheme + 3);
    if (start < 0) return '';
  }
  let end = target.length;
  const query = target.indexOf('?', start);
  if (query >= 0) end = query;
  const fragment = target.indexOf('#', start);
  if (fragment >= 0 && fragment < end) end = fragment;
  return target.slice(start, end);
}

/** A raw path segment percent-decoded, or as it is when it does not decode. */
function decodeSegment(seg: string): string {
  if (!seg.includes('%')) return seg;
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

/** Judges raw request targets against the registered route templates (built once per app). */
export class DotSegmentRouter {
  readonly #byMethod = new Map<string, Template[]>();

  /** `routes` in registration order (the first template that matches wins, as in Hono). */
  constructor(routes: readonly AnyRoute[], prefix: string) {
    for (const route of routes) {
      // A dot segment is never a static word, so only templates with a parameter can match one.
      if (!route.path.includes('/:')) continue;
      const parts = `${prefix}${route.path}`.split('/').slice(1);
      const template: Template = {
        route,
        segments: parts.map((p) => (p.startsWith(':') ? null : p)),
        names: parts.map((p) => (p.startsWith(':') ? p.slice(1) : null)),
      };
      const list = this.#byMethod.get(route.method) ?? [];
      list.push(template);
      this.#byMethod.set(route.method, list);
    }
  }

  /**
   * The verdict on one request. `target` is the raw request target (`undefined` when the request
   * did not come from a listener, e.g. `app.request()` in tests: its URL is already resolved).
   */
  judge(method: string, target: string | undefined): DotSegmentVerdict {
    // Hot path: a dot segment holds a `.` or a `%` (two one-character scans: 30–45 ns per request;
    // the two-character needles `/.` and `/%2` cost three times as much in V8).
    if (target === undefined || !(target.includes('.') || target.includes('%'))) return undefined;
    const segments = rawPathOf(target).split('/').slice(1);
    if (!segments.some(isDotSegment)) return undefined;
    // Hono answers HEAD with the GET route.
    for (const t of this.#byMethod.get(method === 'HEAD' ? 'GET' : method) ?? []) {
      if (t.segments.length !== segments.length) continue;
      const params: string[] = [];
      let matches = true;
      for (let i = 0; i < segments.length && matches; i++) {
        const raw = segments[i]!;
        const word = t.segments[i];
        if (word === null) {
          if (raw === '') matches = false;
          else if (isDotSegment(raw)) params.push(t.names[i]!);
        } else matches = !isDotSegment(raw) && decodeSegment(raw) === word;
      }
      if (matches && params.length > 0) return { route: t.route, params };
    }
    return null;
  }
}

/** Step 6 for a request whose raw path held dot segments in these parameters. */
export const dotSegmentRefusal = (params: string[]): AppError =>
  badRequest(
    params.map((path) => ({
      path,
      message: 'must not be "." or ".." (a dot segment, also when percent-encoded as %2e)',
    })),
  );
