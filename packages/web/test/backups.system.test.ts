/**
 * The backups page in chromium against the real service on a lab array with real restic and a
 * spare loop disk as the backup destination: a plan refused without a backup passphrase (the
 * API's sentence), created, run now (the job followed to the end), its snapshots listed, a folder
 * of the share restored into a new folder (SHA-256 of every file compared), the configuration
 * snapshot's archive downloaded (previewed by the API) and restored through the configuration import
 * (the hostname changed since comes back), the plan deleted with its typed phrase; axe-core and
 * screenshots.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@appliance/client';
import { createLabArray, type LabArray, sha256File, writeFiles } from '@appliance/api-server/testing';
import { type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { signIn } from './signin.ts';

let lab: LabArray & { spares: LoopDisk[] };
let tab: Tab;
let files: Map<string, string>;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const ok = (r: { status: number; text: string }, status: number) => expect(r.status, r.text).toBe(status);

beforeAll(async () => {
  await requirePrerequisites({ tools: ['restic'] });
  lab = await createLabArray({ dataDisks: 1, paritySizeMiB: 320, dataSizeMiB: 300, spares: [200] });
  const spare = lab.spares[0]!.device;
  ok(
    await lab.s.call('POST', '/disks/external', { device: spare, label: 'OFFSITE', backupDestination: true }),
    201,
  );
  ok(
    await lab.s.call('POST', '/disks/external/OFFSITE/format', {
      confirmation: `ERASE ${spare}`,
      filesystem: 'ext4',
    }),
    200,
  );
  ok(await lab.s.call('POST', '/shares', { name: 'media' }), 201);
  files = await writeFiles(lab.real('/mnt/user/media'), 21, (i) => 10_000 + i * 331);
  tab = await openTab();
  await signIn(tab.page, lab.s.url, 'admin', lab.s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await lab?.destroy();
}, 120_000);

describe('the backups page', () => {
  it('a plan without a backup passphrase is refused with the sentence; with one it is created', async () => {
    await tab.page.getByRole('link', { name: 'Backups' }).click();
    await heading('Backups').waitFor();
    await tab.page.getByLabel('Plan name').fill('nightly');
    await tab.page.getByText('Share media').click();
    await tab.page.getByRole('button', { name: 'Create plan' }).click();
    const shown = tab.page.getByRole('alert');
    await shown.waitFor();
    const body = {
      name: 'nightly',
      destination: 'OFFSITE',
      shares: ['media'],
      schedule: { kind: 'daily', time: '03:30' },
    };
    const refused = await lab.s.call('POST', '/backups/plans', body);
    expect(refused.status).toBe(409);
    expect(await shown.textContent()).toBe(refused.body.message);
    ok(
      await lab.s.call('PUT', '/settings', {
        hostname: 'nas-web',
        timezone: 'UTC',
        backupPassphrase: 'a long passphrase',
      }),
      200,
    );
    await tab.page.getByRole('button', { name: 'Create plan' }).click();
    await tab.page.getByTestId('plan-nightly').waitFor();
    expect((await lab.s.call('GET', '/backups/plans/nightly')).body).toMatchObject({
      destination: 'OFFSITE',
      shares: ['media'],
      configuration: true,
    });
    const v80 = await check(tab.page, '80-backups');
    expect(v80, JSON.stringify(v80)).toEqual([]);
  });

  it('edits the plan (GET, then PUT of the whole spec): a bad time is refused with the sentence; the new time and retention are read back', async () => {
    await tab.page.getByRole('button', { name: 'Edit nightly' }).click();
    const form = tab.page.getByRole('form', { name: 'Edit nightly' });
    await form.waitFor();
    const before = (await lab.s.call('GET', '/backups/plans/nightly')).body;
    await form.getByLabel('Time (HH:MM)').fill('4pm');
    await form.getByRole('button', { name: 'Save plan' }).click();
    // the same request as the page's: the whole spec with the new time
    const refused = await lab.s.call('PUT', '/backups/plans/nightly', {
      enabled: before.enabled,
      destination: before.destination,
      configuration: before.configuration,
      stacks: before.stacks,
      shares: before.shares,
      schedule: { ...before.schedule, time: '4pm' },
      retention: before.retention,
      drill: before.drill,
    });
    expect(refused.status).toBe(400);
    await form.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    await form.getByLabel('Time (HH:MM)').fill('04:45');
    await form.getByLabel('Keep daily').fill('3');
    const v81 = await check(tab.page, '81-backups-edit');
    expect(v81, JSON.stringify(v81)).toEqual([]);
    await form.getByRole('button', { name: 'Save plan' }).click();
    await form.waitFor({ state: 'detached' });
    await tab.page.getByTestId('plan-nightly').getByText('Daily at 04:45').waitFor();
    const after = (await lab.s.call('GET', '/backups/plans/nightly')).body;
    expect(after).toMatchObject({
      destination: 'OFFSITE',
      shares: ['media'],
      configuration: true,
      schedule: { kind: 'daily', time: '04:45' },
      retention: { ...before.retention, daily: 3 },
    });
  });

  it('runs now, followed to the end; the snapshots are listed', async () => {
    await tab.page.getByRole('button', { name: 'Run now: nightly' }).click();
    await tab.page.getByTestId('backup-job').filter({ hasText: 'succeeded' }).waitFor({ timeout: 240_000 });
    await tab.page.getByRole('button', { name: 'Snapshots of nightly' }).click();
    await tab.page
      .getByTestId('snapshots')
      .getByRole('row', { name: /share media/ })
      .waitFor({ timeout: 60_000 });
    await tab.page
      .getByTestId('snapshots')
      .getByRole('row', { name: /configuration/ })
      .waitFor();
  });

  it('restores a folder of the share into a new folder: every file has its SHA-256', async () => {
    await tab.page.getByRole('button', { name: /Choose \w+ \(share media\) to restore/ }).click();
    await tab.page.getByLabel('Paths to restore, one per line (empty: the whole snapshot)').fill('set0');
    await tab.page
      .getByLabel('Into a new folder (empty: into place, what is there is moved aside)')
      .fill('/mnt/user/media/restored');
    const v81 = await check(tab.page, '81-backups-restore');
    expect(v81, JSON.stringify(v81)).toEqual([]);
    await tab.page.getByRole('button', { name: 'Restore', exact: true }).click();
    const job = tab.page.locator('[data-card=snapshots]').getByTestId('backup-job');
    await job.filter({ hasText: /succeeded|failed/ }).waitFor({ timeout: 150_000 });
    expect(await job.textContent()).toContain('succeeded');
    const set0 = [...files].filter(([rel]) => rel.startsWith('set0/'));
    expect(set0.length).toBeGreaterThan(0);
    for (const [rel, sum] of set0)
      expect(await sha256File(path.join(lab.real('/mnt/user/media/restored'), rel))).toBe(sum);
    expect(fs.existsSync(lab.real('/mnt/user/media/restored/set1'))).toBe(false);
  });

  it("downloads the configuration snapshot's archive and restores it through the import", async () => {
    const hostname = (await lab.s.call('GET', '/settings')).body.hostname as string;
    await tab.page.getByRole('button', { name: /Choose \w+ \(configuration\) to restore/ }).click();
    const card = tab.page.getByTestId('config-archive');
    await card.waitFor();
    const v82 = await check(tab.page, '82-backups-config-snapshot');
    expect(v82, JSON.stringify(v82)).toEqual([]);
    const [download] = await Promise.all([
      tab.page.waitForEvent('download'),
      card.getByRole('button', { name: 'Download its archive' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^appliance-config-nightly-\d{8}T\d{6}Z\.tar\.zst$/);
    const saved = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'web-backups-')),
      download.suggestedFilename(),
    );
    await download.saveAs(saved);
    // outside the browser: the API previews the downloaded file as this box's configuration
    const preview = await createClient({ url: lab.s.url, token: lab.s.token }).upload(
      '/config/import/preview',
      [{ name: 'archive', file: saved }],
    );
    expect([preview.archive.hostname, preview.blockers]).toEqual([hostname, []]);
    fs.rmSync(path.dirname(saved), { recursive: true, force: true });

    ok(await lab.s.call('PUT', '/settings', { hostname: 'nas-changed', timezone: 'UTC' }), 200);
    await card.getByRole('button', { name: 'Restore it through the import…' }).click();
    await heading('Configuration').waitFor();
    await tab.page
      .getByTestId('chosen-file')
      .filter({ hasText: /^appliance-config-nightly-/ })
      .waitFor();
    await tab.page.getByRole('button', { name: 'Preview the import' }).click();
    await tab.page.getByTestId('no-blockers').waitFor({ timeout: 60_000 });
    await tab.page.getByRole('button', { name: 'Import this configuration' }).click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.getByRole('textbox').fill(`RESTORE ${hostname}`);
    await dialog.getByRole('button', { name: 'Import' }).click();
    await tab.page.getByTestId('imported').waitFor({ timeout: 120_000 });
    expect((await lab.s.call('GET', '/settings')).body.hostname).toBe(hostname);
    await tab.page.getByRole('link', { name: 'Backups' }).click();
    await heading('Backups').waitFor();
  });

  it('deletes the plan after its typed phrase', async () => {
    await tab.page.getByRole('button', { name: 'Delete nightly…' }).click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.getByRole('textbox').fill('DELETE nightly');
    await dialog.getByRole('button', { name: 'Delete plan' }).click();
    await tab.page.getByText('No backup plans.').waitFor();
    expect((await lab.s.call('GET', '/backups/plans')).body.plans).toEqual([]);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
