/**
 * The external disks page in chromium against the real service in lab mode with a spare loop
 * disk: registered, a second registration under the same label refused with the API's sentence,
 * formatted after the typed `ERASE <device>` (blkid reads the new filesystem), mounted (the
 * mount is in /proc/self/mountinfo) and ejected; axe-core and screenshots.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { createLabArray, type LabArray } from '@appliance/api-server/testing';
import type { LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { choose, signIn } from './signin.ts';

const run = promisify(execFile);
let lab: LabArray & { spares: LoopDisk[] };
let tab: Tab;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const spare = () => lab.spares[0]!.device;
const mounted = () =>
  fs.readFileSync('/proc/self/mountinfo', 'utf8').includes(` ${lab.real('/mnt/disks/OFFSITE')} `);

beforeAll(async () => {
  lab = await createLabArray({
    dataDisks: 1,
    paritySizeMiB: 300,
    dataSizeMiB: 300,
    setup: false,
    spares: [96],
  });
  tab = await openTab();
  await signIn(tab.page, lab.s.url, 'admin', lab.s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await lab?.destroy();
}, 120_000);

describe('the external disks page', () => {
  it('registers a disk; the same label again is refused with the sentence', async () => {
    await tab.page.getByRole('link', { name: 'External disks' }).click();
    await heading('External disks').waitFor();
    await choose(tab.page, 'Disk', spare());
    await tab.page.getByLabel('Label').fill('OFFSITE');
    await tab.page.getByText('Use as a backup destination').click();
    await tab.page.getByRole('button', { name: 'Register disk' }).click();
    await tab.page
      .getByTestId('external-disks')
      .getByRole('row', { name: /OFFSITE .*backups/ })
      .waitFor();
    const [disk] = (await lab.s.call('GET', '/disks/external')).body.disks.filter(
      (d: { registered: boolean }) => d.registered,
    );
    expect(disk).toMatchObject({
      label: 'OFFSITE',
      device: spare(),
      backupDestination: true,
      mounted: false,
    });

    const other = lab.disks.data[0]!.device;
    await choose(tab.page, 'Disk', other);
    await tab.page.getByLabel('Label').fill('offsite');
    await tab.page.getByRole('button', { name: 'Register disk' }).click();
    const shown = tab.page.getByRole('alert');
    await shown.waitFor();
    const refused = await lab.s.call('POST', '/disks/external', { device: other, label: 'offsite' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('external_disk_exists');
    expect(await shown.textContent()).toBe(refused.body.message);
    expect(await check(tab.page, '70-external-disks')).toEqual([]);
  });

  it('formats after the typed ERASE phrase; blkid reads the new filesystem', async () => {
    await tab.page.getByRole('button', { name: 'Format OFFSITE…' }).click();
    const dialog = tab.page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Erase and format' });
    await dialog.getByRole('textbox').fill(`erase ${spare()}`);
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill(`ERASE ${spare()}`);
    expect(await check(tab.page, '71-external-format')).toEqual([]);
    await confirm.click();
    await dialog.waitFor({ state: 'detached', timeout: 120_000 });
    await tab.page
      .getByTestId('external-disks')
      .getByRole('row', { name: /OFFSITE .* ext4/ })
      .waitFor();
    const blkid = (await run('blkid', ['-o', 'export', spare()])).stdout;
    expect(blkid).toContain('TYPE=ext4');
    expect(blkid).toContain('LABEL=OFFSITE');
  });

  it('mounts and ejects', async () => {
    await tab.page.getByRole('button', { name: 'Mount OFFSITE' }).click();
    await tab.page.getByRole('button', { name: 'Eject OFFSITE' }).waitFor({ timeout: 60_000 });
    expect(mounted()).toBe(true);
    await tab.page.getByRole('button', { name: 'Eject OFFSITE' }).click();
    await tab.page.getByRole('button', { name: 'Mount OFFSITE' }).waitFor({ timeout: 60_000 });
    expect(mounted()).toBe(false);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
