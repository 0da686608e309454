/**
 * The mover page in chromium against the real service on a lab array with a cache disk: a file
 * written on the cache of a cache-then-move share moves to the data disk after "Run now" (followed
 * live, the page showing what moved and the file kept because it was open for writing, checked on
 * the disks outside the browser); a bad time in the mover settings refused with the API's sentence,
 * a good one saved; a viewer's page read-only; axe-core and screenshots.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createLabArray, type LabArray } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { choose, signIn } from './signin.ts';

let lab: LabArray;
let tab: Tab;
const SHARE = 'media';
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const cache = (rel: string) => lab.real(path.join(`/mnt/cache/${SHARE}`, rel));
const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 1, paritySizeMiB: 320, dataSizeMiB: 300, cacheSizeMiB: 300 });
  const r = await lab.s.call('POST', '/shares', { name: SHARE, cacheMode: 'cache-then-move' });
  expect(r.status, r.text).toBe(201);
  const v = await lab.s.call('POST', '/users', { username: 'bob', role: 'viewer', password: 'bob password' });
  expect(v.status, v.text).toBe(201);
  tab = await openTab();
  await signIn(tab.page, lab.s.url, 'admin', lab.s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await lab?.destroy();
}, 120_000);

describe('the mover page', () => {
  it('"Run now" moves a file from the cache to the data disk; a file open for writing stays, with its reason', async () => {
    fs.mkdirSync(cache('photos'), { recursive: true });
    fs.writeFileSync(cache('photos/beach.jpg'), crypto.randomBytes(3 * 1024 * 1024));
    const before = sha(cache('photos/beach.jpg'));
    fs.writeFileSync(cache('photos/open.txt'), 'still being written');
    const fd = fs.openSync(cache('photos/open.txt'), 'a');
    try {
      await tab.page.getByRole('link', { name: 'Mover' }).click();
      await heading('Mover').waitFor();
      await tab.page.getByText('The mover has not run yet.').waitFor();
      await tab.page.getByText(`Shares it moves${SHARE}`).waitFor();
      expect(await check(tab.page, '70-mover')).toEqual([]);
      await tab.page.getByRole('button', { name: 'Run now' }).click();
      await tab.page.getByTestId('mover-job').getByText('succeeded').waitFor({ timeout: 120_000 });
      await tab.page.getByTestId('mover-moved').filter({ hasText: '1 file(s), 3.0 MiB' }).waitFor();
      await tab.page
        .getByTestId('mover-skipped')
        .filter({ hasText: /^1 file\(s\): 1 open for writing$/ })
        .waitFor();
      await tab.page
        .getByTestId('mover-skipped-files')
        .getByRole('row', { name: `${SHARE} photos/open.txt open for writing` })
        .waitFor();
      expect(await check(tab.page, '71-mover-ran')).toEqual([]);
    } finally {
      fs.closeSync(fd);
    }
    // outside the browser: on the data disk, whole, and no longer on the cache
    expect(fs.existsSync(cache('photos/beach.jpg'))).toBe(false);
    expect(sha(lab.real(`/mnt/disk1/${SHARE}/photos/beach.jpg`))).toBe(before);
    expect(fs.readFileSync(cache('photos/open.txt'), 'utf8')).toBe('still being written');
    expect(fs.existsSync(lab.real(`/mnt/disk1/${SHARE}/photos/open.txt`))).toBe(false);
    const status = (await lab.s.call('GET', '/mover')).body;
    expect(status.lastRun).toMatchObject({ state: 'succeeded', movedFiles: 1, skippedCount: 1 });
  });

  it('a bad time is refused with the sentence, nothing saved; a good one is saved', async () => {
    const before = (await lab.s.call('GET', '/settings/mover')).body;
    expect(before).toEqual({ enabled: true, time: '02:00', verify: 'size-mtime' });
    const time = tab.page.getByLabel("Daily at (HH:MM, 24-hour, the appliance's time zone)");
    await time.fill('25:00');
    await tab.page.getByRole('button', { name: 'Save mover settings' }).click();
    const refused = await lab.s.call('PUT', '/settings/mover', { ...before, time: '25:00' });
    expect(refused.status).toBe(400);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    expect((await lab.s.call('GET', '/settings/mover')).body).toEqual(before);

    await time.fill('03:30');
    await choose(tab.page, 'Verify each copy by', 'SHA-256 of both copies (slower)');
    await tab.page.getByRole('button', { name: 'Save mover settings' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Mover settings saved.' }).waitFor();
    expect((await lab.s.call('GET', '/settings/mover')).body).toEqual({
      enabled: true,
      time: '03:30',
      verify: 'sha256',
    });
    expect((await lab.s.call('GET', '/mover')).body.nextRun).toMatch(/T03:30:00\.000Z$/);
  });

  it("a viewer's page has no enabled write control", async () => {
    await tab.page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(tab.page, lab.s.url, 'bob', 'bob password');
    await tab.page.getByRole('link', { name: 'Mover' }).click();
    await heading('Mover').waitFor();
    await tab.page.getByTestId('mover-moved').waitFor();
    expect(await tab.page.getByRole('button', { name: 'Run now' }).isDisabled()).toBe(true);
    expect(await tab.page.getByRole('button', { name: 'Save mover settings' }).isDisabled()).toBe(true);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
