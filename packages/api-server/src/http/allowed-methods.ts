/**
 * The methods a path is served with, for `405 method_not_allowed` (issue 25; docs/decisions/http.md).
 *
 * Asked only when no route of the request's method matched (the 404 path): a path that a route of
 * another method matches answers 405 with `Allow`, an unknown path stays 404. The app's own router
 * (Hono's `app.router`, the one that routes requests) says which methods' routes match the path, so
 * a path matches a template exactly as Hono matches it. A route served with GET is also served with
 * HEAD.
 */
import type { Hono } from 'hono';

/** The order `Allow` lists methods in. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods whose routes of `app` match `path` (in `Allow` order), or `null` when none does. */
// biome-ignore lint/suspicious/noExplicitAny: any app's router
export function allowedMethods(app: Hono<any>, path: string): string[] | null {
  const methods = ORDER.filter((m) => app.router.match(m === 'HEAD' ? 'GET' : m, path)[0].length > 0);
  return methods.length === 0 ? null : methods;
}
