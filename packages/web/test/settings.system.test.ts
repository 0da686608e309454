/**
 * The settings and audit pages in chromium against the real service: hostname, time zone and
 * the backup passphrase saved (never shown back), an unknown time zone refused with the API's
 * sentence, a watcher threshold saved (read back from the API); the audit log lists those changes
 * and filters them; axe-core and screenshots.
 */
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { choose, signIn } from './signin.ts';

let s: Sandbox;
let tab: Tab;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });

beforeAll(async () => {
  s = await startSandbox({});
  tab = await openTab();
  await signIn(tab.page, s.url, 'admin', s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await s?.close();
}, 120_000);

describe('the settings and audit pages', () => {
  it('an unknown time zone is refused with the sentence, nothing saved', async () => {
    await tab.page.getByRole('link', { name: 'Settings' }).click();
    await heading('Settings').waitFor();
    const before = (await s.call('GET', '/settings')).body;
    await tab.page.getByLabel('Time zone (for example Europe/Paris)').fill('Mars/Olympus_Mons');
    await tab.page.getByRole('button', { name: 'Save settings' }).click();
    const refused = await s.call('PUT', '/settings', {
      hostname: before.hostname,
      timezone: 'Mars/Olympus_Mons',
    });
    expect(refused.status).toBe(400);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    expect((await s.call('GET', '/settings')).body).toEqual(before);
  });

  it('saves hostname, time zone and the passphrase; the passphrase is never shown back', async () => {
    await tab.page.getByLabel('Hostname').fill('nas-web');
    await tab.page.getByLabel('Time zone (for example Europe/Paris)').fill('Europe/Paris');
    await tab.page.getByLabel('Backup passphrase').fill('a long backup passphrase');
    await tab.page.getByRole('button', { name: 'Save settings' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await s.call('GET', '/settings')).body).toEqual({
      hostname: 'nas-web',
      timezone: 'Europe/Paris',
      backupPassphraseSet: true,
    });
    await tab.page.getByTestId('passphrase-state').filter({ hasText: 'set (never shown)' }).waitFor();
    expect(await tab.page.content()).not.toContain('a long backup passphrase');
  });

  it('saves a watcher threshold', async () => {
    await tab.page.getByLabel('Pool used: warn above (%)').fill('85');
    await tab.page.getByRole('button', { name: 'Save thresholds' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Thresholds saved.' }).waitFor();
    expect((await s.call('GET', '/settings/watchers')).body.space.poolUsedPercent).toBe(85);
    expect(await check(tab.page, '60-settings')).toEqual([]);
  });

  it('the audit log lists the changes and filters them', async () => {
    await tab.page.getByRole('link', { name: 'Audit' }).click();
    await heading('Audit log').waitFor();
    const table = tab.page.getByTestId('audit');
    const api = (await s.call('GET', '/audit?limit=100')).body.entries as Array<{ operation: string }>;
    const settingsOps = api.filter((e) => e.operation.startsWith('settings')).length;
    expect(settingsOps).toBeGreaterThanOrEqual(2);
    await table.getByRole('row').nth(api.length).waitFor();
    await tab.page.getByLabel('Filter (operation, target, who, details)').fill('settings');
    await expectRows(settingsOps + 1);
    expect(await check(tab.page, '61-audit')).toEqual([]);
    await choose(tab.page, 'Outcome', 'failed');
    await tab.page.getByText('No entry matches.').waitFor();
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});

/** The audit table has `n` rows (the header row included). */
async function expectRows(n: number) {
  const rows = tab.page.getByTestId('audit').getByRole('row');
  for (let i = 0; i < 50 && (await rows.count()) !== n; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await rows.count()).toBe(n);
}
