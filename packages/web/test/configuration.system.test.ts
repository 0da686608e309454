/**
 * The configuration page in chromium against the real service: the archive downloaded by the
 * browser is previewed by the API (no blocker, this box's hostname), then uploaded through the
 * page's preview; a file that is not an archive is refused with the API's sentence; axe-core and a
 * screenshot. On a fresh box in lab mode (two loop disks an archive's array recorded): the disk
 * mapping chosen by hand, a slot given the other slot's disk refused with the API's sentence, then
 * a slot left out: the other disk mounted where the archive expects it (findmnt), the left-out one not.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createClient } from '@appliance/client';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { choose, signIn } from './signin.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

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

describe('the disk mapping of a fresh box, chosen by hand', () => {
  let imageDir: string;
  const disks: LoopDisk[] = [];
  const boxes: Sandbox[] = [];
  let fresh: Sandbox;
  let freshTab: Tab;
  let freshArchive: string;
  const mountSource = async (m: string) =>
    (
      await run('findmnt', ['-n', '-r', '-o', 'SOURCE', '--mountpoint', path.join(fresh.root, m)]).catch(
        () => ({
          stdout: '',
        }),
      )
    ).stdout.trim();

  beforeAll(async () => {
    await requirePrerequisites({ root: true, tools: ['losetup', 'mkfs.xfs', 'blkid', 'mount', 'findmnt'] });
    imageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-config-fresh-'));
    disks.push(await createLoopDisk({ sizeBytes: 300 * MiB, filesystem: 'xfs', imageDir }));
    disks.push(await createLoopDisk({ sizeBytes: 320 * MiB, filesystem: 'xfs', imageDir }));
    // the box that made the archive: its array recorded both disks (as array setup does)
    const source = await startSandbox({});
    boxes.push(source);
    const uuid = async (device: string) =>
      (await run('blkid', ['-p', '-s', 'UUID', '-o', 'value', device])).stdout.trim();
    const insert = source.server.ctx.sqlite.prepare(
      "insert into array_disks (role, role_index, device, filesystem, fs_uuid, weak_identity, size_bytes, mountpoint) values ('data', ?, '/dev/loop99', 'xfs', ?, 1, ?, ?)",
    );
    const [a, b] = disks as [LoopDisk, LoopDisk];
    insert.run(1, await uuid(a.device), 300 * MiB, '/mnt/disk1');
    insert.run(2, await uuid(b.device), 320 * MiB, '/mnt/disk2');
    source.server.ctx.sqlite
      .prepare(
        "insert into array_settings (id, create_policy, migration_pending, created_at) values (1, 'mfs', 0, ?)",
      )
      .run(new Date().toISOString());
    expect((await source.call('PUT', '/settings', { hostname: 'old-nas', timezone: 'UTC' })).status).toBe(
      200,
    );
    const { stream } = await createClient({ url: source.url, token: source.token }).download(
      'post',
      '/config/export',
    );
    freshArchive = path.join(imageDir, 'old-nas.tar.zst');
    await pipeline(stream, fs.createWriteStream(freshArchive));
    // the new box: no array yet, lab mode sees the loop disks
    fresh = await startSandbox({ config: { lab: { enabled: true, imageDir } } });
    boxes.push(fresh);
    freshTab = await openTab();
    await signIn(freshTab.page, fresh.url, 'admin', fresh.adminPassword);
  }, 300_000);

  afterAll(async () => {
    await freshTab?.close();
    for (const m of ['/mnt/disk1', '/mnt/disk2'])
      if (fresh) await run('umount', [path.join(fresh.root, m)]).catch(() => undefined);
    for (const b of boxes) await b.close();
    for (const d of disks) await d.destroy();
    if (imageDir) fs.rmSync(imageDir, { recursive: true, force: true });
  }, 120_000);

  it('proposes the matched disks; a slot given the other slot’s disk is refused with the sentence', async () => {
    const page = freshTab.page;
    const [a, b] = disks as [LoopDisk, LoopDisk];
    await page.goto(`${fresh.url}/configuration`);
    await heading('Configuration').waitFor();
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Choose an archive…' }).click(),
    ]);
    await chooser.setFiles(freshArchive);
    await page.getByTestId('chosen-file').filter({ hasText: 'old-nas.tar.zst' }).waitFor();
    await page.getByRole('button', { name: 'Preview the import' }).click();
    const table = page.getByTestId('disk-mapping');
    await table.waitFor();
    // each slot's select proposes the disk the preview matched to it
    expect(await page.getByRole('button', { name: /Disk for \/mnt\/disk1\b/ }).textContent()).toContain(
      a.device,
    );
    expect(await page.getByRole('button', { name: /Disk for \/mnt\/disk2\b/ }).textContent()).toContain(
      b.device,
    );
    await choose(page, 'Disk for /mnt/disk2', a.device);
    expect(await check(page, '93-configuration-disk-mapping')).toEqual([]);
    await page.getByRole('button', { name: 'Import this configuration' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox').fill('RESTORE old-nas');
    await dialog.getByRole('button', { name: 'Import' }).click();
    const shown = dialog.getByRole('alert');
    await shown.waitFor();
    // the same request outside the browser: the API's sentence
    const client = createClient({ url: fresh.url, token: fresh.token });
    const refused = await client
      .upload('/config/import', [
        { name: 'archive', file: freshArchive },
        { name: 'confirmation', value: 'RESTORE old-nas' },
        {
          name: 'diskMapping',
          value: JSON.stringify({
            disks: [
              { role: 'data', roleIndex: 1, device: a.device },
              { role: 'data', roleIndex: 2, device: a.device },
            ],
          }),
        },
      ])
      .then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
    expect(refused?.code).toBe('disk_mapping_invalid');
    expect(await shown.textContent()).toBe(refused!.message);
    expect(await mountSource('/mnt/disk1')).toBe('');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('a slot left out stays unmounted; the other disk is mounted where the archive expects it', async () => {
    const page = freshTab.page;
    const [a] = disks as [LoopDisk, LoopDisk];
    await choose(page, 'Disk for /mnt/disk2', 'Leave out');
    await page.getByRole('button', { name: 'Import this configuration' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox').fill('RESTORE old-nas');
    await dialog.getByRole('button', { name: 'Import' }).click();
    // the archive's accounts replace this box's: the page may return to sign-in after "Imported"
    await expect.poll(() => mountSource('/mnt/disk1'), { timeout: 120_000, interval: 500 }).toBe(a.device);
    expect(await mountSource('/mnt/disk2')).toBe('');
    const rows = fresh.server.ctx.sqlite
      .prepare('select role_index as i, device from array_disks order by role_index')
      .all();
    expect(rows).toEqual([
      { i: 1, device: a.device },
      { i: 2, device: '/dev/loop99' },
    ]);
  });
});
