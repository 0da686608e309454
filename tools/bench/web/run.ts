/**
 * The web UI's figures (issue 34), measured in one run on this machine:
 * - JS + CSS the first page loads (index.html's script and stylesheet), gzip: target ≤ 200 KiB;
 * - first load on loopback to the dashboard drawn, signed in (a fresh browser context with the
 *   session cookie, cold cache; until the dashboard's Array card shows its content), median of
 *   --loads: target < 1 s; the reference is the same browser loading a static page of the same
 *   server (the "not built" answer) in the same run;
 * - idle RSS of the built service with the UI served (after loading / and its assets once) beside
 *   the same service without a UI build, 3 s after: target ≤ +3 MiB.
 * - an event raised on the server → shown on the open dashboard, p95 of --events: target < 1 s.
 *   Each event is a real alert (`credential_reset`, raised by `POST /admin/reset-password` on the
 *   service's Unix socket); the time is from the alert's `occurredAt` (the server's clock when it
 *   raised it) to the moment the page drew it (the browser's clock: the same host), as the open
 *   dashboard learns it from `GET /events` and re-reads its alerts.
 *
 *   node tools/bench/web/run.ts [--loads 5] [--events 20]
 * Needs the web build (pnpm --filter @appliance/web build), the built service, and /usr/bin/chromium.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { figures, median, REPO, rssMiB, startAppliance } from '../src/harness.ts';

const { values } = parseArgs({
  options: { loads: { type: 'string', default: '5' }, events: { type: 'string', default: '20' } },
});
const LOADS = Number(values.loads);
const EVENTS = Number(values.events);
const DIST = path.join(REPO, 'packages', 'web', 'dist');
const PASSWORD = 'bench password 1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function firstPageGzipKiB(): number {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  let bytes = zlib.gzipSync(html).byteLength;
  for (const ref of refs) bytes += zlib.gzipSync(fs.readFileSync(path.join(DIST, ref))).byteLength;
  return bytes / 1024;
}

async function idleRss(webDir: string): Promise<number> {
  const s = await startAppliance([], { ...process.env, APPLIANCE_WEB_DIR: webDir });
  try {
    const html = await (await fetch(`${s.url}/`)).text();
    for (const m of html.matchAll(/(?:src|href)="(\/[^"]+)"/g))
      await (await fetch(`${s.url}${m[1]}`)).arrayBuffer();
    await sleep(3000);
    return rssMiB(s.pid);
  } finally {
    await s.stop();
  }
}

/** A JSON POST on the service's Unix socket (the local administrator). */
function socketPost(socket: string, route: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath: socket,
        path: `/api/v1${route}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * 0.95) - 1)]!;

async function loads(): Promise<{
  dashboardMs: number;
  staticMs: number;
  eventP95Ms: number;
  eventMedianMs: number;
}> {
  const s = await startAppliance([], { ...process.env, APPLIANCE_WEB_DIR: DIST });
  const bare = await startAppliance([], {
    ...process.env,
    APPLIANCE_WEB_DIR: path.join(os.tmpdir(), 'no-web-ui'),
  });
  // playwright gives each launch a fresh temporary profile of its own
  const browser = await chromium
    .launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    })
    .catch(async (err: unknown) => {
      await s.stop();
      await bare.stop();
      throw err;
    });
  try {
    await fetch(`${s.url}/api/v1/setup/admin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    const signIn = await fetch(`${s.url}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-appliance-ui': '1', origin: s.url },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!.split('=');
    const dashboard: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const ctx = await browser.newContext();
      await ctx.addCookies([{ name: cookie[0]!, value: cookie[1]!, url: s.url }]);
      const page = await ctx.newPage();
      const t0 = performance.now();
      await page.goto(`${s.url}/`);
      await page.getByRole('heading', { name: 'Array' }).waitFor();
      await page.getByText('No array yet.').waitFor();
      dashboard.push(performance.now() - t0);
      await ctx.close();
      const ctx2 = await browser.newContext();
      const p2 = await ctx2.newPage();
      const t1 = performance.now();
      await p2.goto(`${bare.url}/`);
      await p2.getByText('not built').waitFor();
      plain.push(performance.now() - t1);
      await ctx2.close();
    }

    // events: the dashboard open, one alert at a time, each timed from its raise to its drawing
    const ctx = await browser.newContext();
    await ctx.addCookies([{ name: cookie[0]!, value: cookie[1]!, url: s.url }]);
    const page = await ctx.newPage();
    await page.goto(`${s.url}/`);
    await page.getByRole('heading', { name: 'Latest alerts' }).waitFor();
    await page.getByTestId('live').filter({ hasText: 'Live' }).waitFor();
    // the time (ms since the epoch) each new first alert was drawn, with its text
    await page.evaluate(`(() => {
      const drawn = [];
      window.drawn = drawn;
      let last = null;
      new MutationObserver(() => {
        const first = document.querySelector('.alerts li');
        const t = first ? first.textContent : null;
        if (t && t !== last) { last = t; drawn.push({ at: Date.now(), text: t }); }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    const token = (await (
      await fetch(`${s.url}/api/v1/tokens`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`,
        },
        body: JSON.stringify({ name: 'bench', role: 'admin' }),
      })
    ).json()) as { token: string };
    const shown: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const status = await socketPost(s.socket, '/admin/reset-password', { password: PASSWORD });
      if (status !== 200) throw new Error(`reset-password answered ${status}`);
      // polled from here (the page's CSP forbids evaluating strings in it); the time is the page's own
      const deadline = Date.now() + 10_000;
      while (((await page.evaluate('window.drawn.length')) as number) < i + 1) {
        if (Date.now() > deadline) throw new Error(`alert ${i + 1} not drawn within 10 s`);
        await sleep(20);
      }
      const drawn = ((await page.evaluate('window.drawn')) as Array<{ at: number; text: string }>)[i]!;
      const alerts = (await (
        await fetch(`${s.url}/api/v1/notifications/alerts?limit=1`, {
          headers: { authorization: `Bearer ${token.token}` },
        })
      ).json()) as { alerts: Array<{ occurredAt: string; message: string }> };
      const alert = alerts.alerts[0]!;
      if (!drawn.text.includes(alert.message)) throw new Error(`the page drew another alert: ${drawn.text}`);
      shown.push(drawn.at - Date.parse(alert.occurredAt));
      await sleep(200 + Math.random() * 300);
    }
    await ctx.close();
    return {
      dashboardMs: median(dashboard),
      staticMs: median(plain),
      eventP95Ms: p95(shown),
      eventMedianMs: median(shown),
    };
  } finally {
    await browser.close();
    await s.stop();
    await bare.stop();
  }
}

const gz = firstPageGzipKiB();
const { dashboardMs, staticMs, eventP95Ms, eventMedianMs } = await loads();
const withUi = await idleRss(DIST);
const without = await idleRss(path.join(os.tmpdir(), 'no-web-ui'));
const ok = figures('web UI (issue 34)', [
  {
    figure: 'first page JS+CSS+HTML, gzip',
    value: `${gz.toFixed(1)} KiB`,
    target: '≤ 200 KiB',
    reference: '',
    pass: gz <= 200,
  },
  {
    figure: 'first load → dashboard drawn (median)',
    value: `${Math.round(dashboardMs)} ms`,
    target: '< 1000 ms',
    reference: `static page ${Math.round(staticMs)} ms`,
    pass: dashboardMs < 1000,
  },
  {
    figure: `event raised → shown on the dashboard (p95 of ${EVENTS})`,
    value: `${Math.round(eventP95Ms)} ms`,
    target: '< 1000 ms',
    reference: `median ${Math.round(eventMedianMs)} ms`,
    pass: eventP95Ms < 1000,
  },
  {
    figure: 'idle RSS with the UI served',
    value: `${withUi.toFixed(1)} MiB (${withUi - without >= 0 ? '+' : ''}${(withUi - without).toFixed(1)})`,
    target: '≤ +3 MiB',
    reference: `without UI ${without.toFixed(1)} MiB`,
    pass: withUi - without <= 3,
  },
]);
process.exitCode = ok ? 0 : 1;
