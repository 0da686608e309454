/**
 * The disks-leaving-the-array page in chromium against the real service on a lab array: a data
 * disk's removal state recorded from the page (read back, and its effect outside the browser: an
 * upgrade of that slot is refused with disk_leaving_array), a second disk refused with the API's
 * sentence (one removal at a time), the state cleared; the migration flag set from the page (a new
 * share then refused by the API with migration_in_progress) and cleared; a viewer's page
 * read-only; axe-core and screenshots.
 */
import { createLabArray, type LabArray } from '@appliance/api-server/testing';
import type { LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { choose, signIn } from './signin.ts';

let lab: LabArray & { spares: LoopDisk[] };
let tab: Tab;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const slot = async (mountpoint: string) =>
  (await lab.s.call('GET', '/disks/array')).body.disks.find(
    (d: { mountpoint: string }) => d.mountpoint === mountpoint,
  );

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 320, dataSizeMiB: 300, spares: [300] });
  const v = await lab.s.call('POST', '/users', { username: 'bob', role: 'viewer', password: 'bob password' });
  expect(v.status, v.text).toBe(201);
  tab = await openTab();
  await signIn(tab.page, lab.s.url, 'admin', lab.s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await lab?.destroy();
}, 120_000);

describe('disks leaving the array', () => {
  it('records a removal state from the page; an upgrade of that slot is then refused', async () => {
    await tab.page.getByRole('link', { name: 'Disks', exact: true }).click();
    await heading('Disks').waitFor();
    await tab.page.getByRole('link', { name: 'Disks leaving the array' }).click();
    await heading('Disks leaving the array').waitFor();
    await tab.page.getByTestId('migration-state').filter({ hasText: 'No migration is pending.' }).waitFor();
    expect(await check(tab.page, '80-disk-removal')).toEqual([]);

    await choose(tab.page, 'Removal state of /mnt/disk2', 'evacuating (files being moved off)');
    await tab.page.getByRole('button', { name: 'Save the removal state of /mnt/disk2' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await slot('/mnt/disk2')).removalState).toBe('evacuating');
    const up = await lab.s.call('POST', '/disks/array/upgrade/plan', {
      mountpoint: '/mnt/disk2',
      device: lab.spares[0]!.device,
    });
    expect(up.status, up.text).toBe(409);
    expect(up.body.code).toBe('disk_leaving_array');
  });

  it('a second disk is refused with the sentence (one removal at a time), nothing recorded', async () => {
    await choose(tab.page, 'Removal state of /mnt/disk1', 'evacuating (files being moved off)');
    await tab.page.getByRole('button', { name: 'Save the removal state of /mnt/disk1' }).click();
    const refused = await lab.s.call('PUT', '/disks/array/removal-state', {
      mountpoint: '/mnt/disk1',
      removalState: 'evacuating',
    });
    expect([refused.status, refused.body.code]).toEqual([409, 'removal_in_progress']);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    expect((await slot('/mnt/disk1')).removalState).toBeNull();

    await choose(tab.page, 'Removal state of /mnt/disk1', 'in the array');
    await choose(tab.page, 'Removal state of /mnt/disk2', 'in the array');
    await tab.page.getByRole('button', { name: 'Save the removal state of /mnt/disk2' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await slot('/mnt/disk2')).removalState).toBeNull();
  });

  it('sets the migration flag (a share is then refused by the API) and clears it', async () => {
    await tab.page.getByRole('button', { name: 'Mark a migration pending' }).click();
    await tab.page.getByTestId('migration-state').filter({ hasText: 'A migration is pending' }).waitFor();
    expect((await lab.s.call('GET', '/migration')).body.pending).toBe(true);
    const share = await lab.s.call('POST', '/shares', { name: 'media' });
    expect([share.status, share.body.code]).toEqual([409, 'migration_in_progress']);
    expect(await check(tab.page, '81-migration-pending')).toEqual([]);
    await tab.page.getByRole('button', { name: 'Clear the migration flag' }).click();
    await tab.page.getByTestId('migration-state').filter({ hasText: 'No migration is pending.' }).waitFor();
    expect((await lab.s.call('GET', '/migration')).body).toEqual({ pending: false, since: null });
    expect((await lab.s.call('POST', '/shares', { name: 'media' })).status).toBe(201);
  });

  it("a viewer's page has no enabled write control", async () => {
    await tab.page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(tab.page, lab.s.url, 'bob', 'bob password');
    await tab.page.goto(`${lab.s.url}/disks/removal`);
    await heading('Disks leaving the array').waitFor();
    await tab.page.getByTestId('migration-state').waitFor();
    expect(await tab.page.getByRole('button', { name: 'Mark a migration pending' }).isDisabled()).toBe(true);
    expect(
      await tab.page.getByRole('button', { name: 'Save the removal state of /mnt/disk1' }).isDisabled(),
    ).toBe(true);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
