/**
 * The web UI in a real browser (Debian's chromium through playwright-core) against the real
 * service in lab mode on loop disks: first run and sign-in, a cross-site write refused, array setup
 * from the disks page, a sync whose bar moves and ends "in sync", an alert shown live, a viewer's
 * read-only pages, a session ended by sign-out refused afterwards; axe-core on every page and a
 * screenshot of each (packages/web/.reports/screenshots).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LabArray, createLabArray, writeFiles } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';

const MiB = 1024 * 1024;
const PASSWORD = 'correct horse battery';
let lab: LabArray & { spares: unknown[] };
let tab: Tab;
let attacker: http.Server | null = null;
const devices = () => [lab.disks.parity.device, ...lab.disks.data.map((d) => d.device)];

beforeAll(async () => {
  lab = await createLabArray({
    dataDisks: 2,
    paritySizeMiB: 640,
    dataSizeMiB: 512,
    setup: false,
    admin: false,
  });
  tab = await openTab();
}, 300_000);

afterAll(async () => {
  attacker?.close();
  await tab?.close();
  await lab?.destroy();
}, 120_000);

const go = async (path: string) => {
  await tab.page.goto(`${lab.s.url}${path}`);
};
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });

/** Buttons a user could press on this page, besides signing out. */
async function enabledButtons(): Promise<string[]> {
  const names = await tab.page
    .locator('main button:not([disabled]), main [role=button]:not([aria-disabled=true]):not([disabled])')
    .allInnerTexts();
  return names.map((n) => n.trim()).filter((n) => n !== '');
}

describe('the web UI in chromium', () => {
  it('first run: creates the administrator and signs in; the cookie is HttpOnly and Strict, no storage used', async () => {
    await go('/');
    await heading('Set up your appliance').waitFor();
    expect(await check(tab.page, '01-first-run')).toEqual([]);
    await tab.page.getByLabel('Username').fill('admin');
    await tab.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await tab.page.getByLabel('Password again').fill(PASSWORD);
    await tab.page.getByRole('button', { name: 'Create administrator' }).click();
    await heading('Dashboard').waitFor();
    const cookies = await tab.context.cookies();
    expect(cookies).toEqual([
      expect.objectContaining({ name: 'appliance_session', httpOnly: true, sameSite: 'Strict', path: '/' }),
    ]);
    expect(await tab.page.evaluate('localStorage.length + sessionStorage.length')).toBe(0);
    // the test's own admin token, for facts checked outside the browser
    const basic = Buffer.from(`admin:${PASSWORD}`).toString('base64');
    const tok = await lab.s.call(
      'POST',
      '/tokens',
      { name: 't', role: 'admin' },
      { token: null, headers: { authorization: `Basic ${basic}` } },
    );
    expect(tok.status).toBe(201);
    lab.s.token = tok.body.token;
  });

  it('dashboard: drawn, live, accessible', async () => {
    await tab.page.getByTestId('live').filter({ hasText: 'Live' }).waitFor();
    await tab.page.getByRole('heading', { name: 'Array' }).waitFor();
    expect(await check(tab.page, '02-dashboard')).toEqual([]);
  });

  it('signs out and in again', async () => {
    await tab.page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    expect(await check(tab.page, '03-sign-in')).toEqual([]);
    await tab.page.getByLabel('Username').fill('admin');
    await tab.page.getByLabel('Password').fill('wrong password');
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await tab.page.getByRole('alert').filter({ hasText: 'The username or password is not right' }).waitFor();
    await tab.page.getByLabel('Password').fill(PASSWORD);
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Dashboard').waitFor();
  });

  it('a cross-site form post carrying the session cookie writes nothing', async () => {
    const target = `${lab.s.url}/api/v1/users`;
    attacker = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><title>prize</title><form id="f" method="POST" action="${target}" enctype="text/plain">
<input name='{"username":"mallory","role":"admin","password":"mallory password","x":"' value='"}'></form>
<script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((r) => attacker!.listen(0, '127.0.0.1', () => r()));
    const port = (attacker.address() as AddressInfo).port;
    await tab.page.goto(`http://127.0.0.1:${port}/`);
    await tab.page.waitForURL(target);
    expect(await tab.page.locator('body').textContent()).toContain('Cross-origin writes are refused');
    const users = await lab.s.call('GET', '/users');
    expect(users.body.users.map((u: { username: string }) => u.username)).toEqual(['admin']);
  });

  it('sets up the array from the disks page with the typed ERASE phrase', async () => {
    await go('/disks');
    await heading('Disks').waitFor();
    await tab.page.getByRole('heading', { name: 'Set up the array' }).waitFor();
    const [parity, ...data] = devices();
    const choose = async (device: string, role: string) => {
      await tab.page.getByRole('button', { name: new RegExp(`Role of ${device}\\b`) }).click();
      await tab.page.getByRole('option', { name: role, exact: true }).click();
    };
    await choose(parity!, 'parity');
    for (const d of data) await choose(d, 'data');
    expect(await check(tab.page, '04-disks')).toEqual([]);
    await tab.page.getByRole('button', { name: 'Review setup' }).click();
    await tab.page.getByRole('button', { name: 'Erase and set up' }).click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.waitFor();
    const phrase = ((await dialog.locator('.phrase').textContent()) ?? '').trim();
    expect(phrase).toBe(`ERASE ${devices().sort().join(', ')}`);
    const confirm = dialog.getByRole('button', { name: 'Erase and set up' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill(phrase);
    expect(await check(tab.page, '05-disks-erase-dialog')).toEqual([]);
    await confirm.click();
    await tab.page.getByRole('heading', { name: 'Array slots' }).waitFor({ timeout: 180_000 });
    const array = await lab.s.call('GET', '/disks/array');
    expect(array.body.configured).toBe(true);
    expect(array.body.disks.map((d: { device: string }) => d.device).sort()).toEqual(devices().sort());
  });

  it('a sync on the parity page: the bar moves and the page ends "in sync"', async () => {
    await writeFiles(lab.real('/mnt/user'), 64, () => 5 * MiB);
    await go('/parity');
    await tab.page.getByTestId('parity-state').filter({ hasText: 'never synced' }).waitFor();
    // every value the bar shows, as the page draws it
    await tab.page.evaluate(`(() => {
      const seen = [];
      window.seen = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid=bar-value]')) {
          const t = el.textContent ?? '';
          if (seen[seen.length - 1] !== t) seen.push(t);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await tab.page.getByRole('button', { name: 'Sync now' }).click();
    await tab.page.getByTestId('parity-state').filter({ hasText: 'in sync' }).waitFor({ timeout: 180_000 });
    const seen = (await tab.page.evaluate('window.seen')) as string[];
    const percents = [...new Set(seen.map((t) => /^(\d+)%/.exec(t)?.[1]).filter((p) => p !== undefined))];
    // the bar was drawn with a percent while the job ran (how many steps reach the page depends on
    // how often snapraid reports, at most 4 events a second), and the job ended at 100 %
    expect(percents.length, JSON.stringify(seen)).toBeGreaterThanOrEqual(1);
    const jobs = await lab.s.call('GET', '/jobs');
    expect(jobs.body.jobs[0]).toMatchObject({ type: 'parity.sync', state: 'succeeded', percent: 100 });
    expect(await check(tab.page, '06-parity')).toEqual([]);
  });

  it('an alert raised on the server appears on the open dashboard without a reload', async () => {
    await go('/');
    await tab.page.getByTestId('live').filter({ hasText: 'Live' }).waitFor();
    await lab.s.server.ctx.hooks.raise?.({
      eventType: 'credential_reset',
      title: 'Browser test alert',
      message: 'Raised while the dashboard was open.',
    });
    await tab.page.getByText('Browser test alert').waitFor({ timeout: 10_000 });
  });

  it('jobs, a job, SMART details and the replace and upgrade wizards are accessible', async () => {
    await go('/jobs');
    await heading('Jobs').waitFor();
    expect(await check(tab.page, '07-jobs')).toEqual([]);
    await tab.page
      .getByRole('link', { name: /parity sync/i })
      .first()
      .click();
    await tab.page.getByRole('heading', { name: 'Progress' }).waitFor();
    const detail = await check(tab.page, '08-job-detail');
    expect(detail, JSON.stringify(detail)).toEqual([]);
    await go(`/disks/${lab.disks.data[0]!.device.replace('/dev/', '')}/smart`);
    await heading(/^SMART/).waitFor();
    await tab.page.getByRole('heading', { name: 'Last reading' }).waitFor();
    expect(await check(tab.page, '09-smart')).toEqual([]);
    await go('/disks/replace');
    await heading('Replace a failed disk').waitFor();
    expect(await check(tab.page, '10-replace')).toEqual([]);
    await go('/disks/upgrade');
    await heading('Upgrade a disk').waitFor();
    expect(await check(tab.page, '11-upgrade')).toEqual([]);
  });

  it('reads at 360 px wide without sideways scrolling', async () => {
    await tab.page.setViewportSize({ width: 360, height: 780 });
    await go('/');
    await heading('Dashboard').waitFor();
    await tab.page.getByRole('heading', { name: 'Array' }).waitFor();
    expect(await check(tab.page, '12-dashboard-360')).toEqual([]);
    expect(await tab.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await tab.page.setViewportSize({ width: 1280, height: 900 });
  });

  it("a viewer's pages are read-only; after sign-out the session is refused", async () => {
    const viewer = await lab.s.call('POST', '/users', {
      username: 'vic',
      role: 'viewer',
      password: 'vic password',
    });
    expect(viewer.status).toBe(201);
    await tab.page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    await tab.page.getByLabel('Username').fill('vic');
    await tab.page.getByLabel('Password').fill('vic password');
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Dashboard').waitFor();
    for (const [path, title] of [
      ['/', 'Dashboard'],
      ['/disks', 'Disks'],
      ['/parity', 'Parity'],
      ['/jobs', 'Jobs'],
      ['/disks/replace', 'Replace a failed disk'],
    ] as const) {
      await go(path);
      await heading(title).waitFor();
      await tab.page.waitForLoadState('networkidle').catch(() => undefined);
      expect(await enabledButtons(), path).toEqual([]);
    }
    expect(await check(tab.page, '13-viewer-replace')).toEqual([]);
    await go('/parity');
    await tab.page.getByRole('button', { name: 'Sync now' }).waitFor();
    expect(await tab.page.getByRole('button', { name: 'Sync now' }).isDisabled()).toBe(true);
    expect(await check(tab.page, '14-viewer-parity')).toEqual([]);

    const cookie = (await tab.context.cookies()).find((c) => c.name === 'appliance_session')!;
    await tab.page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    const after = await fetch(`${lab.s.url}/api/v1/users`, {
      headers: { cookie: `${cookie.name}=${cookie.value}` },
    });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { code: string }).code).toBe('session_ended');
    await tab.page.reload();
    await heading('Sign in').waitFor();
  });

  it('no page broke its Content Security Policy or threw', () => {
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
