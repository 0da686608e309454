/**
 * The catalog page's sources in chromium against the real service (no dockerd needed): a folder
 * source removed after its confirmation (gone from `GET /catalog`, its folder kept on disk), the
 * built-in source without a Remove control (the API refuses it too), a removal the API refuses
 * (the source removed meanwhile) shown as its sentence, and a viewer's disabled control; axe-core
 * and a screenshot.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { signIn } from './signin.ts';

let s: Sandbox;
let tab: Tab;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const sourceIds = async () =>
  ((await s.call('GET', '/catalog')).body.sources as Array<{ id: string }>).map((x) => x.id);
const openCatalog = async () => {
  await tab.page.goto(`${s.url}/apps/catalog`);
  await heading('App catalog').waitFor();
};

beforeAll(async () => {
  s = await startSandbox({});
  for (const id of ['lab', 'spare', 'late'])
    expect((await s.call('POST', '/catalog/sources', { id, kind: 'directory' })).status).toBe(201);
  const v = await s.call('POST', '/users', { username: 'bob', role: 'viewer', password: 'bob password' });
  expect(v.status, v.text).toBe(201);
  tab = await openTab();
  await signIn(tab.page, s.url, 'admin', s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await s?.close();
}, 120_000);

describe('the catalog sources', () => {
  it('removes a folder source after its confirmation: gone from the catalog, its folder kept', async () => {
    const folder = path.join(s.root, 'var/lib/appliance/catalog/spare');
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'mine');
    await openCatalog();
    const rows = tab.page.getByTestId('sources');
    await rows.getByRole('row', { name: /spare directory/ }).waitFor();
    // the built-in catalog has no Remove control, and the API refuses its removal
    await rows.getByRole('row', { name: /builtin/ }).waitFor();
    expect(await tab.page.getByRole('button', { name: 'Remove builtin…' }).count()).toBe(0);
    const builtin = await s.call('DELETE', '/catalog/sources/builtin');
    expect(builtin.status).toBe(409);
    expect(builtin.body.code).toBe('catalog_source_builtin');

    await tab.page.getByRole('button', { name: 'Remove spare…' }).click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.getByText('Its folder stays on disk.').waitFor();
    expect(await check(tab.page, '47-catalog-source-remove')).toEqual([]);
    await dialog.getByRole('button', { name: 'Remove source' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rows.getByRole('row', { name: /spare directory/ }).waitFor({ state: 'detached' });
    expect(await sourceIds()).toEqual(expect.arrayContaining(['builtin', 'lab', 'late']));
    expect(await sourceIds()).not.toContain('spare');
    expect(fs.readFileSync(path.join(folder, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('shows a refused removal as the API sentence (the source removed meanwhile)', async () => {
    await tab.page.getByRole('button', { name: 'Remove late…' }).click();
    const dialog = tab.page.getByRole('dialog');
    expect((await s.call('DELETE', '/catalog/sources/late')).status).toBe(204);
    await dialog.getByRole('button', { name: 'Remove source' }).click();
    const refused = await s.call('DELETE', '/catalog/sources/late');
    expect(refused.status).toBe(404);
    await dialog.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await sourceIds()).toContain('lab');
  });

  it("a viewer's Remove control is disabled", async () => {
    await tab.page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(tab.page, s.url, 'bob', 'bob password');
    await openCatalog();
    await tab.page
      .getByTestId('sources')
      .getByRole('row', { name: /lab directory/ })
      .waitFor();
    expect(await tab.page.getByRole('button', { name: 'Remove lab…' }).isDisabled()).toBe(true);
    expect(await sourceIds()).toContain('lab');
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
