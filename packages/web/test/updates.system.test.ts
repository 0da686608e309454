/**
 * The updates page in chromium against the real service (a sandbox: it never checks or updates
 * this machine's packages): a check refused with the API's sentence; a reboot scheduled from the
 * page (read back from the API, audited) and cancelled; a time beyond the API's limit refused with
 * its sentence; axe-core and screenshots. "Reboot now" and "Update now" are never pressed here.
 */
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { signIn } from './signin.ts';

let s: Sandbox;
let tab: Tab;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
/** A `datetime-local` value `days` ahead at 03:15 (local time, as the browser reads it). */
const localAhead = (days: number) => {
  const d = new Date(Date.now() + days * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T03:15`;
};

beforeAll(async () => {
  s = await startSandbox({});
  tab = await openTab();
  await signIn(tab.page, s.url, 'admin', s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await s?.close();
}, 120_000);

describe('the updates page', () => {
  it('a check in a sandbox is refused with the sentence; nothing started', async () => {
    await tab.page.getByRole('link', { name: 'Updates' }).click();
    await heading('Updates').waitFor();
    await tab.page.getByRole('button', { name: 'Check now' }).click();
    const refused = await s.call('POST', '/updates/check', {});
    expect(refused.status).toBeGreaterThanOrEqual(400);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    const jobs = (await s.call('GET', '/jobs')).body.jobs as unknown[];
    expect(jobs).toEqual([]);
    expect(await check(tab.page, '110-updates')).toEqual([]);
  });

  it('schedules a reboot (read back from the API), cancels it; a time too far ahead is refused with the sentence', async () => {
    const field = tab.page.getByLabel("Reboot at (this browser's time)");
    await field.fill(localAhead(1));
    await tab.page.getByRole('button', { name: 'Schedule the reboot' }).click();
    await tab.page.getByTestId('reboot-scheduled').filter({ hasText: 'Reboot scheduled for' }).waitFor();
    const scheduled = (await s.call('GET', '/system/reboot')).body;
    expect(scheduled.scheduledAt).toBe(new Date(localAhead(1)).toISOString());
    expect(scheduled.scheduledBy).toBe('admin');
    expect(await check(tab.page, '111-updates-reboot')).toEqual([]);
    await tab.page.getByRole('button', { name: 'Cancel the scheduled reboot' }).click();
    await tab.page.getByTestId('reboot-scheduled').filter({ hasText: 'No reboot scheduled.' }).waitFor();
    expect((await s.call('GET', '/system/reboot')).body.scheduledAt).toBeNull();
    const audit = JSON.stringify((await s.call('GET', '/audit')).body);
    expect(audit).toContain('system.reboot.schedule');
    expect(audit).toContain('system.reboot.cancel');

    await field.fill(localAhead(60));
    await tab.page.getByRole('button', { name: 'Schedule the reboot' }).click();
    const refused = await s.call('POST', '/system/reboot', { at: new Date(localAhead(60)).toISOString() });
    expect(refused.status).toBe(400);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    expect((await s.call('GET', '/system/reboot')).body.scheduledAt).toBeNull();
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
