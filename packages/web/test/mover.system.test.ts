/**
 * The mover page in chromium against the real service on a lab array with a cache disk (loop
 * disks, xfs, mergerfs): files of a cache-then-move share written to the cache, the mover run from
 * the page (its job followed to the end), every file on exactly one data disk with its SHA-256 and
 * gone from the cache; a schedule the API refuses shown with its sentence; axe-core and screenshots.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createLabArray, type LabArray, sha256File, writeFiles } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { signIn } from './signin.ts';

let lab: LabArray;
let tab: Tab;
let files: Map<string, string>;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 400, dataSizeMiB: 320, cacheSizeMiB: 320 });
  const r = await lab.s.call('POST', '/shares', { name: 'inbox', cacheMode: 'cache-then-move' });
  expect(r.status, r.text).toBe(201);
  files = await writeFiles(lab.real('/mnt/cache/inbox'), 30, (i) => 20_000 + i * 977);
  tab = await openTab();
  await signIn(tab.page, lab.s.url, 'admin', lab.s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await lab?.destroy();
}, 120_000);

describe('the mover page', () => {
  it('runs the mover now: every file leaves the cache for exactly one data disk, SHA-256 kept', async () => {
    await tab.page.getByRole('link', { name: 'Mover' }).click();
    await heading('Mover').waitFor();
    await tab.page.getByText('The mover has not run yet.').waitFor();
    await tab.page.getByRole('button', { name: 'Run the mover now' }).click();
    await tab.page
      .getByTestId('mover-moved')
      .filter({ hasText: `${files.size} files moved` })
      .waitFor({ timeout: 120_000 });
    await tab.page.getByTestId('mover-last').getByText('succeeded').waitFor();
    expect(await check(tab.page, '100-mover')).toEqual([]);
    for (const [rel, sha] of files) {
      expect(fs.existsSync(path.join(lab.real('/mnt/cache/inbox'), rel)), rel).toBe(false);
      const on = ['/mnt/disk1', '/mnt/disk2'].filter((d) =>
        fs.existsSync(path.join(lab.real(d), 'inbox', rel)),
      );
      expect(on, rel).toHaveLength(1);
      expect(await sha256File(path.join(lab.real(on[0]!), 'inbox', rel))).toBe(sha);
    }
    const status = (await lab.s.call('GET', '/mover')).body;
    expect(status.lastRun).toMatchObject({ state: 'succeeded', movedFiles: files.size, skippedCount: 0 });
  });

  it('a schedule time the API refuses is shown with its sentence; a good one is saved', async () => {
    const time = tab.page.getByLabel('Time (HH:MM)');
    await time.fill('25:00');
    await tab.page.getByRole('button', { name: 'Save schedule' }).click();
    const refused = await lab.s.call('PUT', '/settings/mover', {
      enabled: true,
      time: '25:00',
      verify: 'size-mtime',
    });
    expect(refused.status).toBe(400);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    await time.fill('01:30');
    await tab.page.getByRole('button', { name: 'Save schedule' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await lab.s.call('GET', '/settings/mover')).body.time).toBe('01:30');
    expect(await check(tab.page, '101-mover-settings')).toEqual([]);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
