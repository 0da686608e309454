/**
 * The shares pages in chromium against the real service on a lab array: create a share, a
 * refusal shown as the API's sentence, edit, the access matrix saved as one full replace with the
 * effective access beside it (the smb.conf section checked on disk), the share's files deleted
 * after the dry run and the typed name, the share deleted; a viewer's page read-only; axe-core on
 * every page, screenshots in .reports/screenshots.
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
const alert = (text: string) => tab.page.getByRole('alert').filter({ hasText: text });

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 320, dataSizeMiB: 300 });
  for (const [username, role] of [
    ['alice', 'share-only'],
    ['bob', 'viewer'],
  ] as const) {
    const r = await lab.s.call('POST', '/users', { username, role, password: `${username} password` });
    expect(r.status).toBe(201);
    ids[username] = r.body.id;
  }
  const g = await lab.s.call('POST', '/user-groups', { name: 'family' });
  expect(g.status).toBe(201);
  ids['family'] = g.body.id;
  expect(
    (await lab.s.call('PUT', `/user-groups/${ids['family']}/members`, { userIds: [ids['bob']] })).status,
  ).toBe(200);
  tab = await openTab();
  await signIn(tab.page, lab.s.url, 'admin', lab.s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await lab?.destroy();
}, 120_000);

describe('the shares pages', () => {
  it('creates a share from the list; a second one differing only in case is refused with the sentence', async () => {
    await tab.page.getByRole('link', { name: 'Shares' }).click();
    await heading('Shares').waitFor();
    await tab.page.getByText('No shares yet.').waitFor();
    expect(await check(tab.page, '20-shares')).toEqual([]);
    await tab.page.getByLabel('Name').fill('media');
    await choose(tab.page, 'Where new files go', 'least free space (lfs)');
    await tab.page.getByRole('button', { name: 'Create share' }).click();
    await heading('Share media').waitFor();
    const created = await lab.s.call('GET', '/shares/media');
    expect(created.body).toMatchObject({
      cacheMode: 'array-only',
      createPolicy: 'lfs',
      smb: { enabled: true },
    });
    // a new share is closed
    expect(section('media')).toContain('available = no');
    await tab.page.getByTestId('share-available').filter({ hasText: 'Closed' }).waitFor();

    await tab.page.getByRole('link', { name: 'All shares' }).click();
    await heading('Shares').waitFor();
    await tab.page.getByLabel('Name').fill('MEDIA');
    await tab.page.getByRole('button', { name: 'Create share' }).click();
    const refused = await lab.s.call('POST', '/shares', { name: 'MEDIA' });
    expect(refused.status).toBe(409);
    await alert(refused.body.message).waitFor();
    expect((await lab.s.call('GET', '/shares')).body.shares.map((s: { name: string }) => s.name)).toEqual([
      'media',
    ]);
  });

  it('edits the share: a cache mode without a cache disk is refused with the sentence, nothing saved', async () => {
    await tab.page.getByRole('link', { name: 'media' }).click();
    await heading('Share media').waitFor();
    await choose(tab.page, 'Cache mode', 'cache only');
    await tab.page.getByRole('button', { name: 'Save share' }).click();
    const refused = await lab.s.call('PUT', '/shares/media', {
      cacheMode: 'cache-only',
      createPolicy: 'lfs',
      smb: { enabled: true, browseable: true },
    });
    expect(refused.status).toBe(409);
    await alert(refused.body.message).waitFor();
    expect((await lab.s.call('GET', '/shares/media')).body.cacheMode).toBe('array-only');
    await choose(tab.page, 'Cache mode', 'array only (data disks)');
    const browseable = tab.page.getByRole('checkbox', { name: 'Listed when browsing the network' });
    await tab.page.getByText('Listed when browsing the network').click();
    expect(await browseable.isChecked()).toBe(false);
    await tab.page.getByRole('button', { name: 'Save share' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await lab.s.call('GET', '/shares/media')).body.smb).toEqual({ enabled: true, browseable: false });
    expect(section('media')).toContain('browseable = no');
  });

  it('saves the access matrix as one full replace; the effective access and smb.conf follow', async () => {
    await choose(tab.page, 'Grant of user alice', 'read-write');
    await choose(tab.page, 'Grant of group family', 'read-only');
    expect(await check(tab.page, '21-share-access')).toEqual([]);
    await tab.page.getByRole('button', { name: 'Save access' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Access saved.' }).waitFor();
    const table = tab.page.getByTestId('effective-access');
    await table.getByRole('row', { name: /alice read-write own grant/ }).waitFor();
    await table.getByRole('row', { name: /bob read-only a group/ }).waitFor();
    await table.getByRole('row', { name: /admin none no grant/ }).waitFor();
    const perms = await lab.s.call('GET', '/shares/media/permissions');
    expect(perms.body).toEqual({
      users: [{ userId: ids['alice'], username: 'alice', access: 'read-write' }],
      groups: [{ groupId: ids['family'], name: 'family', access: 'read-only' }],
    });
    const media = section('media') ?? '';
    expect(media).toContain('valid users = alice bob');
    expect(media).toContain('write list = alice');
    expect(media).not.toContain('available = no');

    // full replace: alice's row cleared, bob denied over his group's read-only
    await choose(tab.page, 'Grant of user alice', 'no grant');
    await choose(tab.page, 'Grant of user bob', 'denied');
    await tab.page.getByRole('button', { name: 'Save access' }).click();
    await table.getByRole('row', { name: /bob none own grant/ }).waitFor();
    expect((await lab.s.call('GET', '/shares/media/permissions')).body).toEqual({
      users: [{ userId: ids['bob'], username: 'bob', access: 'none' }],
      groups: [{ groupId: ids['family'], name: 'family', access: 'read-only' }],
    });
    expect(section('media')).toContain('available = no');
  });

  it("deletes the share's files after the dry run's per-disk result and the typed name", async () => {
    fs.mkdirSync(lab.real('/mnt/disk1/media/album'), { recursive: true });
    fs.writeFileSync(lab.real('/mnt/disk1/media/album/a.flac'), 'a'.repeat(8192));
    fs.writeFileSync(lab.real('/mnt/disk2/media/b.txt'), 'b');
    const deleteFiles = tab.page.getByRole('button', { name: 'Delete the files…' });
    expect(await deleteFiles.isDisabled()).toBe(true);
    await tab.page.getByRole('button', { name: 'Preview the delete' }).click();
    const dry = tab.page.getByTestId('dry-run');
    await dry.getByRole('row', { name: /\/mnt\/disk1\/media 1 1/ }).waitFor();
    await dry.getByRole('row', { name: /\/mnt\/disk2\/media 1 0/ }).waitFor();
    expect(fs.existsSync(lab.real('/mnt/disk1/media/album/a.flac'))).toBe(true);
    await deleteFiles.click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.getByText('2 files and 1 folders').waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete the files' });
    await dialog.getByRole('textbox').fill('Media');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill('media');
    expect(await check(tab.page, '22-share-delete-data')).toEqual([]);
    await confirm.click();
    await tab.page
      .getByTestId('delete-report')
      .getByRole('row', { name: /Total 2 1/ })
      .waitFor();
    expect(fs.readdirSync(lab.real('/mnt/disk1/media'))).toEqual([]);
    expect(fs.readdirSync(lab.real('/mnt/disk2/media'))).toEqual([]);
    expect((await lab.s.call('GET', '/shares/media')).status).toBe(200);
  });

  it('a viewer sees the share read-only', async () => {
    const viewer = await openTab();
    try {
      await signIn(viewer.page, lab.s.url, 'bob', 'bob password');
      await viewer.page.goto(`${lab.s.url}/shares/media`);
      await viewer.page.getByRole('heading', { level: 1, name: 'Share media' }).waitFor();
      await viewer.page.getByTestId('effective-access').waitFor();
      const enabled = await viewer.page
        .locator('main button:not([disabled]):not([aria-disabled=true])')
        .allInnerTexts();
      expect(enabled).toEqual([]);
      expect(await check(viewer.page, '23-viewer-share')).toEqual([]);
      expect(viewer.problems).toEqual([]);
    } finally {
      await viewer.close();
    }
  });

  it('deletes the share: its smb.conf section goes, its folders stay', async () => {
    await tab.page.getByRole('button', { name: 'Delete share…' }).click();
    await tab.page.getByRole('dialog').getByRole('button', { name: 'Delete share' }).click();
    await heading('Shares').waitFor();
    await tab.page.getByText('No shares yet.').waitFor();
    expect((await lab.s.call('GET', '/shares/media')).status).toBe(404);
    expect(section('media')).toBeUndefined();
    expect(fs.existsSync(lab.real('/mnt/disk1/media'))).toBe(true);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
