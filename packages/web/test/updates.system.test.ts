/**
 * The updates and reboot page in chromium against the real service, never touching this machine:
 * apt works on a repository and dpkg root of the test's own (`@appliance/updates/test-support`,
 * the same world as the server's tests), and `systemctl` is a shim first on the service's tool
 * path with the scheduler off (nothing reboots). Version 2 published → "Check now" lists it →
 * "Apply updates" followed live → dpkg's root has version 2 (checked outside the browser); a
 * reboot required read from the test's host root; a reboot scheduled, one too far ahead refused
 * with the API's sentence, then cancelled; axe-core and screenshots.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HOST_PATH } from '@appliance/common';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { requirePrerequisites } from '@appliance/lab';
import { type AptLab, createAptLab } from '@appliance/updates/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { signIn } from './signin.ts';

let s: Sandbox;
let apt: AptLab;
let tab: Tab;
let host: string;
let shim: string;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const calls = () => {
  const log = path.join(shim, 'calls');
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
};
/** `datetime-local`'s value for a time `days` ahead (this process's time zone, as the browser's). */
const localIn = (days: number) => {
  const d = new Date(Date.now() + days * 86_400_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
};

beforeAll(async () => {
  await requirePrerequisites({ tools: ['apt-get', 'dpkg-deb', 'dpkg-scanpackages', 'zstd'] });
  apt = await createAptLab();
  await apt.publish('demo-tool', '1.0');
  await apt.aptGet('-q', 'update');
  await apt.aptGet('-y', '-q', 'install', 'demo-tool=1.0');
  // a host root of the test's own: its run/reboot-required, never this machine's
  host = fs.mkdtempSync(path.join(os.tmpdir(), 'web-updates-host-'));
  for (const d of ['etc', 'run', 'boot', 'proc/sys/kernel'])
    fs.mkdirSync(path.join(host, d), { recursive: true });
  fs.writeFileSync(path.join(host, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  fs.writeFileSync(path.join(host, 'etc/group'), 'root:x:0:\n');
  fs.writeFileSync(path.join(host, 'proc/sys/kernel/osrelease'), '6.1.0-17-amd64\n');
  fs.writeFileSync(path.join(host, 'boot/vmlinuz-6.1.0-17-amd64'), '');
  shim = fs.mkdtempSync(path.join(os.tmpdir(), 'web-updates-shim-'));
  fs.writeFileSync(path.join(shim, 'systemctl'), `#!/bin/sh\necho "$*" >> '${shim}/calls'\n`, {
    mode: 0o755,
  });
  s = await startSandbox({
    hostRoot: host,
    config: { updates: { aptConfig: apt.aptConfig }, toolPath: `${shim}:${HOST_PATH}` },
    start: { scheduler: false },
  });
  tab = await openTab();
  await signIn(tab.page, s.url, 'admin', s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await s?.close();
  await apt?.destroy();
  if (host) fs.rmSync(host, { recursive: true, force: true });
  if (shim) fs.rmSync(shim, { recursive: true, force: true });
}, 120_000);

describe('the updates and reboot page', () => {
  it('checks, lists version 2 and applies it, followed live; dpkg has version 2', async () => {
    await tab.page.getByRole('link', { name: 'Updates' }).click();
    await heading('Updates and reboot').waitFor();
    await tab.page.getByTestId('updates-checked').filter({ hasText: 'never' }).waitFor();
    await tab.page.getByRole('button', { name: 'Check now' }).click();
    await tab.page.getByTestId('updates-job').getByText('succeeded').waitFor({ timeout: 120_000 });
    await tab.page.getByTestId('updates-none').waitFor();
    expect(await tab.page.getByRole('button', { name: 'Apply updates…' }).isDisabled()).toBe(true);

    await apt.publish('demo-tool', '2.0');
    await tab.page.getByRole('button', { name: 'Check now' }).click();
    const row = tab.page.getByTestId('updates-pending').getByRole('row', { name: /demo-tool 1\.0 2\.0/ });
    await row.waitFor({ timeout: 120_000 });
    await tab.page.getByTestId('updates-count').filter({ hasText: '1 package(s), 0 security' }).waitFor();
    expect(await check(tab.page, '75-updates')).toEqual([]);

    await tab.page.getByRole('button', { name: 'Apply updates…' }).click();
    const dialog = tab.page.getByRole('dialog', { name: 'Apply the updates' });
    await dialog.getByRole('button', { name: 'Apply updates' }).click();
    await tab.page.getByTestId('updates-job').getByRole('link', { name: 'updates apply' }).waitFor();
    await tab.page.getByTestId('updates-job').getByText('succeeded').waitFor({ timeout: 120_000 });
    await tab.page.getByTestId('updates-none').waitFor();
    // outside the browser: the lab's dpkg root has version 2 installed, its file written
    expect(await apt.installed('demo-tool')).toBe('2.0');
    expect(apt.payload('demo-tool')).toBe('2.0');
    const view = (await s.call('GET', '/updates')).body;
    expect(view.lastApply).toMatchObject({ type: 'updates.apply', state: 'succeeded' });
    expect(calls()).toEqual([]);
  });

  it('shows a reboot required; schedules one, refuses one too far ahead with the sentence, cancels', async () => {
    fs.writeFileSync(path.join(host, 'run/reboot-required'), '*** System restart required ***\n');
    fs.writeFileSync(path.join(host, 'run/reboot-required.pkgs'), 'libc6\n');
    await s.server.ctx.watchers.runOnce('reboot');
    await tab.page.reload();
    await heading('Updates and reboot').waitFor();
    await tab.page
      .getByTestId('reboot-required')
      .filter({ hasText: 'A reboot is required (for libc6).' })
      .waitFor();

    const at = tab.page.getByLabel('Reboot at (your local time, at most 30 days ahead)');
    const far = localIn(40);
    await at.fill(far);
    await tab.page.getByRole('button', { name: 'Schedule reboot' }).click();
    const refused = await s.call('POST', '/system/reboot', { at: new Date(far).toISOString() });
    expect(refused.status).toBe(400);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    expect((await s.call('GET', '/system/reboot')).body.scheduledAt).toBeNull();

    const soon = localIn(2);
    await at.fill(soon);
    await tab.page.getByRole('button', { name: 'Schedule reboot' }).click();
    await tab.page.getByTestId('reboot-scheduled').filter({ hasText: 'A reboot is scheduled for' }).waitFor();
    expect((await s.call('GET', '/system/reboot')).body).toMatchObject({
      required: true,
      packages: ['libc6'],
      scheduledAt: new Date(soon).toISOString(),
      scheduledBy: 'admin',
    });
    expect(await check(tab.page, '76-reboot-scheduled')).toEqual([]);

    await tab.page.getByRole('button', { name: 'Cancel the scheduled reboot' }).click();
    await tab.page.getByTestId('reboot-scheduled').filter({ hasText: 'No reboot is scheduled.' }).waitFor();
    expect((await s.call('GET', '/system/reboot')).body.scheduledAt).toBeNull();

    // "Reboot now" asks for the typed word (by keyboard); the scheduler is off here: nothing runs
    await tab.page.getByRole('button', { name: 'Reboot now…' }).click();
    const dialog = tab.page.getByRole('dialog', { name: 'Reboot now' });
    const confirm = dialog.getByRole('button', { name: 'Reboot now' });
    expect(await confirm.isDisabled()).toBe(true);
    await tab.page.keyboard.type('REBOOT');
    await tab.page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await tab.page.getByTestId('reboot-scheduled').filter({ hasText: 'A reboot is scheduled for' }).waitFor();
    const now = (await s.call('GET', '/system/reboot')).body.scheduledAt;
    expect(Math.abs(Date.parse(now) - Date.now())).toBeLessThan(60_000);
    await tab.page.getByRole('button', { name: 'Cancel the scheduled reboot' }).click();
    await tab.page.getByTestId('reboot-scheduled').filter({ hasText: 'No reboot is scheduled.' }).waitFor();
    // nothing rebooted, not even the shim
    expect(calls()).toEqual([]);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
