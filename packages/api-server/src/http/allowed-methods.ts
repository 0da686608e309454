/**
 * The methods a path is served with, for `405 method_not_allowed` (issue 25; docs/decisions/http.md).
 *
 * Asked only when no route of the request's method matched (the 404 path): a path that a route of
 * another method matches answers 405 with `Allow`, an unknown path stays 404. A path matches a
 * template as Hono matches it: segment by segment, a static word equal to the (percent-decoded)
 * segment, a parameter any non-empty segment. A route served with GET is also served with HEAD.
 */
import type { AnyRoute } from './route.ts';

/** The order `Allow` lists methods in. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface Template {
  method: string;
  /** A static word, or `null` for a parameter. */
  segments: Array<string | null>;
}

/** A raw path segment percent-decoded, or as it is when it does not decode. */
export function decodeSegment(seg: string): string {
  if (!seg.includes('%')) return seg;
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

export class AllowedMethods {
  readonly #templates: Template[];

  constructor(routes: readonly AnyRoute[], prefix: string) {
    this.#templates = routes.map((r) => ({
      method: r.method,
      segments: `${prefix}${r.path}`
        .split('/')
        .slice(1)
        .map((p) => (p.startsWith(':') ? null : p)),
    }));
  }

  /** The methods whose routes match `path` (in `Allow` order), or `null` when none does. */
  of(path: string): string[] | null {
    const segments = path.split('/').slice(1);
    const methods = new Set<string>();
    for (const t of this.#templates) {
      if (t.segments.length !== segments.length) continue;
      const matches = t.segments.every((word, i) => {
        const seg = segments[i]!;
        return word === null ? seg !== '' : decodeSegment(seg) === word;
      });
      if (!matches) continue;
      methods.add(t.method);
      if (t.method === 'GET') methods.add('HEAD');
    }
    return methods.size === 0 ? null : ORDER.filter((m) => methods.has(m));
  }
}
