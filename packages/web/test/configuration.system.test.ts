/**
 * The configuration page in chromium against the real service: the archive downloaded by the
 * browser is previewed by the API (no blocker, this box's hostname), then uploaded through the
 * page's preview; a file that is not an archive is refused with the API's sentence; axe-core and a
 * screenshot.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@appliance/client';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { signIn } from './signin.ts';

let s: Sandbox;
let tab: Tab;
let work: string;
let archive: string;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'web-config-'));
  s = await startSandbox({});
  expect(
    (
      await s.call('PUT', '/settings', {
        hostname: 'nas-web',
        timezone: 'UTC',
        backupPassphrase: 'a long passphrase',
      })
    ).status,
  ).toBe(200);
  tab = await openTab();
  await signIn(tab.page, s.url, 'admin', s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await s?.close();
  fs.rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('the configuration page', () => {
  it('downloads the archive; the API previews the downloaded file', async () => {
    await tab.page.getByRole('link', { name: 'Configuration' }).click();
    await heading('Configuration').waitFor();
    const [download] = await Promise.all([
      tab.page.waitForEvent('download'),
      tab.page.getByRole('button', { name: 'Download the configuration' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^appliance-config-nas-web-\d{8}T\d{6}Z\.tar\.zst$/);
    archive = path.join(work, download.suggestedFilename());
    await download.saveAs(archive);
    const client = createClient({ url: s.url, token: s.token });
    const preview = await client.upload('/config/import/preview', [
      { name: 'archive', file: archive },
      { name: 'passphrase', value: 'a long passphrase' },
    ]);
    expect(preview.archive.hostname).toBe('nas-web');
    expect(preview.blockers).toEqual([]);
    expect(preview.secrets.status).toBe('opened');
  });

  it('previews an uploaded archive in the page', async () => {
    const [chooser] = await Promise.all([
      tab.page.waitForEvent('filechooser'),
      tab.page.getByRole('button', { name: 'Choose an archive…' }).click(),
    ]);
    await chooser.setFiles(archive);
    await tab.page
      .getByTestId('chosen-file')
      .filter({ hasText: path.basename(archive) })
      .waitFor();
    await tab.page
      .getByLabel('Its backup passphrase (to open its secrets; optional)')
      .fill('a long passphrase');
    await tab.page.getByRole('button', { name: 'Preview the import' }).click();
    await tab.page.getByTestId('no-blockers').waitFor();
    await tab.page.getByTestId('import-preview').getByText('nas-web', { exact: false }).first().waitFor();
    expect(await check(tab.page, '90-configuration')).toEqual([]);
  });

  it('imports the previewed archive after the typed phrase: the hostname changed since comes back', async () => {
    expect((await s.call('PUT', '/settings', { hostname: 'nas-changed', timezone: 'UTC' })).status).toBe(200);
    await tab.page.getByRole('button', { name: 'Import this configuration' }).click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.waitFor();
    expect(((await dialog.locator('.phrase').textContent()) ?? '').trim()).toBe('RESTORE nas-web');
    const confirm = dialog.getByRole('button', { name: 'Import' });
    await dialog.getByRole('textbox').fill('RESTORE nas-changed');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill('RESTORE nas-web');
    expect(await check(tab.page, '91-configuration-import-dialog')).toEqual([]);
    await confirm.click();
    await tab.page.getByTestId('imported').waitFor({ timeout: 120_000 });
    expect(await tab.page.getByTestId('imported').textContent()).toMatch(/kept in .+\.tar\.zst/);
    expect(await check(tab.page, '92-configuration-imported')).toEqual([]);
    // outside the browser: the archive's hostname is this box's again, the import audited
    const settings = await s.call('GET', '/settings');
    expect(settings.body.hostname).toBe('nas-web');
    const audit = await s.call('GET', '/audit');
    expect(JSON.stringify(audit.body)).toContain('config.import');
  });

  it('a file that is not an archive is refused with the sentence', async () => {
    const junk = path.join(work, 'not-an-archive.tar.zst');
    fs.writeFileSync(junk, 'this is not zstd');
    const [chooser] = await Promise.all([
      tab.page.waitForEvent('filechooser'),
      tab.page.getByRole('button', { name: 'Choose an archive…' }).click(),
    ]);
    await chooser.setFiles(junk);
    await tab.page.getByTestId('chosen-file').filter({ hasText: 'not-an-archive.tar.zst' }).waitFor();
    await tab.page.getByRole('button', { name: 'Preview the import' }).click();
    const shown = tab.page.getByRole('alert');
    await shown.waitFor();
    const client = createClient({ url: s.url, token: s.token });
    const refused = await client.upload('/config/import/preview', [{ name: 'archive', file: junk }]).then(
      () => null,
      (e: Error) => e,
    );
    expect(refused).not.toBeNull();
    expect(await shown.textContent()).toBe(refused!.message);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
