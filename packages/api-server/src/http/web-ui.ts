import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';
import { serveStatic } from 'hono/serve-static';
import { API_PREFIX, type AppEnv } from './app.ts';

/**
 * The web UI (`@appliance/web`, docs/decisions/web-ui.md) served at `/` beside the API: its
 * built files from `APPLIANCE_WEB_DIR` or the package's `dist/` next to this one. Hashed assets
 * (`/assets/…`) are cached for a year (immutable); `index.html` is revalidated on every load and
 * answers every deep link (a path without a file extension). Every answer carries a Content
 * Security Policy of `default-src 'self'`: the UI loads nothing from another host. Without a build
 * the service still starts and `/` says how to build the UI.
 */
export function webUiDir(): string {
  return process.env['APPLIANCE_WEB_DIR'] ?? fileURLToPath(new URL('../../../web/dist', import.meta.url));
}

/**
 * `default-src 'self'`, plus the hash of the one style element React Aria inserts (its press
 * handling: `@layer { [data-react-aria-pressable] { touch-action: pan-x pan-y pinch-zoom; } }`);
 * nothing else inline. A React Aria update that changes that text shows up as a CSP violation in
 * the browser tests (docs/decisions/web-ui.md).
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; style-src 'self' 'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o='; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; form-action 'self'";

const IMMUTABLE = 'public, max-age=31536000, immutable';

function secure(c: Context): void {
  c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Frame-Options', 'DENY');
}

/** A regular file inside `root` (no symlink out of it), or null. */
async function readInside(root: string, file: string): Promise<Uint8Array<ArrayBuffer> | null> {
  try {
    const real = await fs.promises.realpath(file);
    if (real !== root && !real.startsWith(root + path.sep)) return null;
    const stat = await fs.promises.stat(real);
    if (!stat.isFile()) return null;
    const data = await fs.promises.readFile(real);
    return new Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
  } catch {
    return null;
  }
}

const notBuilt = (dir: string) =>
  `The appliance web UI is not built, so there is nothing to show here yet (the API under ${API_PREFIX} works).\n` +
  `Build it with:  pnpm --filter @appliance/web build   (or: pnpm exec turbo run build)\n` +
  `then reload this page. The service looks for it in ${dir} (set APPLIANCE_WEB_DIR to change that).\n`;

/**
 * The answer to every GET/HEAD outside `/api/` (createApp's `outsideApi`; the API's own 404
 * answers the rest): a file of the build, `index.html` for a deep link, or how to build the UI.
 */
export function webUi(dir = webUiDir()): (c: Context<AppEnv>) => Promise<Response> {
  let root: string | null = null;
  const resolveRoot = (): string | null => {
    if (root) return root;
    try {
      root = fs.realpathSync(dir);
      return root;
    } catch {
      return null;
    }
  };
  const files = serveStatic({
    root: '/',
    join: (_r: string, p: string) => p,
    getContent: async (p: string) => {
      const r = resolveRoot();
      return r ? readInside(r, path.join(r, p)) : null;
    },
    onFound: (p: string, c: Context) => {
      secure(c);
      c.header('Cache-Control', p.startsWith('/assets/') ? IMMUTABLE : 'no-cache');
    },
  });
  return async (c: Context<AppEnv>): Promise<Response> => {
    const p = c.req.path;
    const r = resolveRoot();
    const index = r ? await readInside(r, path.join(r, 'index.html')) : null;
    if (!index) {
      secure(c);
      c.header('Cache-Control', 'no-store');
      return c.text(notBuilt(dir), 503);
    }
    if (p !== '/' && p !== '/index.html') {
      const served = await files(c, async () => undefined);
      if (served) return served;
      // a missing file with an extension (an old hashed asset) is a plain 404
      if (/\.[A-Za-z0-9]+$/.test(p)) {
        secure(c);
        return c.text('Not found.\n', 404);
      }
    }
    // `/` and every deep link: the page itself, never cached
    secure(c);
    c.header('Cache-Control', 'no-cache');
    c.header('Content-Type', 'text/html; charset=utf-8');
    return c.body(index);
  };
}
