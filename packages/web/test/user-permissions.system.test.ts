/**
 * The user-side share editor (`/users/:id/permissions`) in chromium against the real service on a
 * lab array: a user's grant on every share set (one by keyboard) and saved as one full replace,
 * read back through the API and in smb.conf, the effective access beside it; a share deleted
 * meanwhile refused with the API's sentence, nothing saved; an unknown user's page shows the API's
 * sentence; a viewer's page read-only; axe-core and screenshots.
 */
import fs from 'node:fs';
import { createLabArray, type LabArray } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { choose, signIn } from './signin.ts';

let lab: LabArray;
let tab: Tab;
const ids: Record<string, string> = {};
const smbConf = () => fs.readFileSync(lab.real('/etc/appliance/samba/smb.conf'), 'utf8');
const section = (name: string) => new RegExp(`^\\[${name}\\]\\n((?:   .*\\n?)*)`, 'm').exec(smbConf())?.[1];
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 1, paritySizeMiB: 320, dataSizeMiB: 300 });
  for (const [username, role] of [
    ['alice', 'share-only'],
    ['bob', 'viewer'],
  ] as const) {
    const r = await lab.s.call('POST', '/users', { username, role, password: `${username} password` });
    expect(r.status).toBe(201);
    ids[username] = r.body.id;
  }
  for (const name of ['media', 'photos', 'scratch'])
    expect((await lab.s.call('POST', '/shares', { name })).status).toBe(201);
  tab = await openTab();
  await signIn(tab.page, lab.s.url, 'admin', lab.s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await lab?.destroy();
}, 120_000);

describe('the user-side share editor', () => {
  it("saves a user's grant on every share as one full replace; the API and smb.conf follow", async () => {
    await tab.page.getByRole('link', { name: 'Users' }).click();
    await heading('Users').waitFor();
    await tab.page.getByRole('link', { name: 'Share access of alice' }).click();
    await heading('Share access of alice').waitFor();
    await tab.page.getByTestId('effective-media').filter({ hasText: 'none (no grant)' }).waitFor();
    await choose(tab.page, 'Grant on media', 'read-write');
    // by keyboard: the select opens with Enter, arrows move, Enter picks
    await tab.page.getByRole('button', { name: /Grant on photos\b/ }).focus();
    await tab.page.keyboard.press('Enter');
    await tab.page.getByRole('listbox').waitFor();
    await tab.page.keyboard.press('ArrowDown');
    await tab.page.keyboard.press('Enter');
    await tab.page.getByRole('listbox').waitFor({ state: 'detached' });
    expect(await tab.page.getByRole('button', { name: /Grant on photos\b/ }).textContent()).toContain(
      'denied',
    );
    expect(await check(tab.page, '95-user-permissions')).toEqual([]);
    await tab.page.getByRole('button', { name: 'Save share access' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Share access saved.' }).waitFor();
    await tab.page.getByTestId('effective-media').filter({ hasText: 'read-write (own grant)' }).waitFor();
    await tab.page.getByTestId('effective-photos').filter({ hasText: 'none (own grant)' }).waitFor();
    const perms = await lab.s.call('GET', `/users/${ids['alice']}/permissions`);
    expect(perms.body).toEqual({
      userId: ids['alice'],
      username: 'alice',
      permissions: [
        { shareName: 'media', access: 'read-write' },
        { shareName: 'photos', access: 'none' },
      ],
    });
    // the share-side view reads the same rows; Samba enforces them
    expect((await lab.s.call('GET', '/shares/media/permissions')).body.users).toEqual([
      { userId: ids['alice'], username: 'alice', access: 'read-write' },
    ]);
    expect(section('media')).toContain('write list = alice');
    expect(section('media')).not.toContain('available = no');

    // full replace: media's grant cleared, scratch given read-only
    await choose(tab.page, 'Grant on media', 'no grant');
    await choose(tab.page, 'Grant on scratch', 'read-only');
    await tab.page.getByRole('button', { name: 'Save share access' }).click();
    await tab.page.getByTestId('effective-scratch').filter({ hasText: 'read-only (own grant)' }).waitFor();
    expect((await lab.s.call('GET', `/users/${ids['alice']}/permissions`)).body.permissions).toEqual([
      { shareName: 'photos', access: 'none' },
      { shareName: 'scratch', access: 'read-only' },
    ]);
    expect(section('media')).toContain('available = no');
  });

  it('a share deleted meanwhile is refused with the sentence; nothing saved', async () => {
    expect((await lab.s.call('DELETE', '/shares/scratch')).status).toBeLessThan(300);
    await choose(tab.page, 'Grant on media', 'read-only');
    await tab.page.getByRole('button', { name: 'Save share access' }).click();
    const refused = await lab.s.call('PUT', `/users/${ids['alice']}/permissions`, {
      permissions: [
        { shareName: 'media', access: 'read-only' },
        { shareName: 'photos', access: 'none' },
        { shareName: 'scratch', access: 'read-only' },
      ],
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    expect((await lab.s.call('GET', `/users/${ids['alice']}/permissions`)).body.permissions).toEqual([
      { shareName: 'photos', access: 'none' },
    ]);
  });

  it("an unknown user's page shows the API's sentence", async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    await tab.page.goto(`${lab.s.url}/users/${unknown}/permissions`);
    const refused = await lab.s.call('GET', `/users/${unknown}/permissions`);
    expect(refused.status).toBe(404);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    expect(
      tab.problems.filter((p) => !p.includes('404')),
      JSON.stringify(tab.problems),
    ).toEqual([]);
  });

  it("a viewer sees a user's share access read-only", async () => {
    const viewer = await openTab();
    try {
      await signIn(viewer.page, lab.s.url, 'bob', 'bob password');
      await viewer.page.goto(`${lab.s.url}/users/${ids['alice']}/permissions`);
      await viewer.page.getByRole('heading', { level: 1, name: 'Share access of alice' }).waitFor();
      await viewer.page.getByTestId('effective-photos').filter({ hasText: 'none (own grant)' }).waitFor();
      const enabled = await viewer.page
        .locator('main button:not([disabled]):not([aria-disabled=true])')
        .allInnerTexts();
      expect(enabled).toEqual([]);
      expect(await check(viewer.page, '96-viewer-user-permissions')).toEqual([]);
    } finally {
      await viewer.close();
    }
  });
});
