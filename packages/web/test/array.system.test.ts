/**
 * The array's life in chromium against the real service on loop disks (real snapraid, mergerfs,
 * xfs): a sync whose bar shows increasing percents and ends "in sync" (snapraid held with SIGSTOP
 * at each of its first two progress percents until the page draws it); the deletion guard
 * (files deleted above it → "Sync now" → the blocked sync with the removed paths → a forced sync
 * after the typed phrase); a data disk destroyed outside the UI shown offline on the open
 * dashboard within 15 s, and the replace wizard (plan → warnings and steps → typed confirmation →
 * progress → result) bringing every file back, SHA-256 compared outside the browser.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLabArray, type LabArray, sha256File, writeFiles } from '@appliance/api-server/testing';
import type { LoopDisk } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { signIn } from './signin.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
let lab: LabArray & { spares: LoopDisk[] };
let tab: Tab;
/** Every file in the pool (path → SHA-256), kept up to date with what the test deletes. */
let files: Map<string, string>;
const pool = () => lab.real('/mnt/user');
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const go = (p: string) => tab.page.goto(`${lab.s.url}${p}`);

/**
 * The next snapraid sync stops (SIGSTOP) right after each of its first two distinct progress
 * percents, until `release()`: the page must draw each while snapraid waits, so the bar is seen to
 * move however quick or loaded the host is (a duty cycle slowing snapraid to a tenth still let a
 * loaded run finish before a second value reached the page). `next()` resolves with the percent
 * snapraid is held at.
 */
function holdSnapraidSync(): { next: () => Promise<number>; release: () => void; undo: () => void } {
  const runner = lab.runner;
  const original = runner.run;
  let pid = 0;
  let stopped = false;
  const held: number[] = [];
  const waiters: Array<(percent: number) => void> = [];
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // it has exited
    }
  };
  runner.run = (command, args, options) => {
    if (!args.includes('sync')) return original.call(runner, command, args, options);
    return original
      .call(runner, command, args, {
        ...options,
        onSpawn: (p) => {
          pid = p;
          options?.onSpawn?.(p);
        },
        onLine: (line, stream) => {
          options?.onLine?.(line, stream);
          const m = stream === 'stdout' ? /^\s*(\d+)%/.exec(line) : null;
          if (!m || held.length >= 2 || held.at(-1) === Number(m[1])) return;
          held.push(Number(m[1]));
          stopped = true;
          signal('SIGSTOP');
          waiters.shift()?.(Number(m[1]));
        },
      })
      .finally(() => {
        if (stopped) signal('SIGCONT');
      });
  };
  let taken = 0;
  return {
    next: () => {
      const i = taken++;
      return i < held.length ? Promise.resolve(held[i]!) : new Promise((resolve) => waiters.push(resolve));
    },
    release: () => {
      if (stopped) signal('SIGCONT');
      stopped = false;
    },
    undo: () => {
      runner.run = original;
    },
  };
}

/** Unmount, wipe the signature, zero the first MiB, detach: the disk is gone (as the server's replace test does). */
async function destroy(disk: LoopDisk, mountpoint: string) {
  await run('umount', [lab.real(mountpoint)]);
  await run('wipefs', ['-a', disk.device]);
  await run('dd', ['if=/dev/zero', `of=${disk.device}`, 'bs=1M', 'count=1', 'oflag=direct', 'status=none']);
  await run('losetup', ['-d', disk.device]);
}

beforeAll(async () => {
  lab = await createLabArray({ dataDisks: 2, paritySizeMiB: 700, dataSizeMiB: 512, spares: [600] });
  files = await writeFiles(pool(), 48, (i) => 3 * MiB + i * 4099);
  tab = await openTab();
  await signIn(tab.page, lab.s.url, 'admin', lab.s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await lab?.destroy();
}, 120_000);

describe('the array in chromium: sync, deletion guard, a destroyed disk replaced', () => {
  it('a sync: the bar shows at least two increasing percents and the page ends "in sync"', async () => {
    await go('/parity');
    await heading('Parity').waitFor();
    await tab.page.getByTestId('parity-state').filter({ hasText: 'never synced' }).waitFor();
    // every value the bar shows, in the order the page draws them
    await tab.page.evaluate(`(() => {
      const seen = [];
      window.seen = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid=bar-value]')) {
          const t = el.textContent ?? '';
          if (seen[seen.length - 1] !== t) seen.push(t);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    const hold = holdSnapraidSync();
    try {
      await tab.page.getByRole('button', { name: 'Sync now' }).click();
      // twice: snapraid waits at a percent until the page draws it
      for (let i = 0; i < 2; i++) {
        const percent = await hold.next();
        await tab.page
          .getByTestId('bar-value')
          .filter({ hasText: new RegExp(`^${percent}%`) })
          .waitFor({ timeout: 30_000 });
        hold.release();
      }
      await tab.page.getByTestId('parity-state').filter({ hasText: 'in sync' }).waitFor({ timeout: 300_000 });
    } finally {
      hold.release();
      hold.undo();
    }
    const seen = (await tab.page.evaluate('window.seen')) as string[];
    const percents = seen.flatMap((t) => {
      const m = /^(\d+)%/.exec(t);
      return m ? [Number(m[1])] : [];
    });
    const distinct = percents.filter((p, i) => i === 0 || p !== percents[i - 1]);
    expect(new Set(distinct).size, JSON.stringify(seen)).toBeGreaterThanOrEqual(2);
    // within the sync phase the bar only goes up
    const sync = distinct.slice(distinct.lastIndexOf(Math.min(...distinct)));
    expect(sync, JSON.stringify(seen)).toEqual([...sync].sort((a, b) => a - b));
    const jobs = await lab.s.call('GET', '/jobs');
    expect(jobs.body.jobs[0]).toMatchObject({ type: 'parity.sync', state: 'succeeded', percent: 100 });
    expect((await lab.s.call('GET', '/disks/array/parity')).body.parity).toBe('in_sync');
  }, 400_000);

  it('the deletion guard: the blocked sync shows the removed paths, "Sync now" comes back, a forced sync needs the typed phrase', async () => {
    // the guard set on the page: more than 3 removed files blocks a sync
    const guard = tab.page.getByLabel(/Deletion guard/);
    await guard.fill('3');
    await guard.blur();
    await tab.page.getByRole('button', { name: 'Save settings' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await lab.s.call('GET', '/settings/parity')).body.deleteThreshold).toBe(3);

    const gone = [...files.keys()].filter((f) => f.startsWith('set2/')).slice(0, 5);
    expect(gone).toHaveLength(5);
    for (const f of gone) {
      await fs.rm(path.join(pool(), f));
      files.delete(f);
    }
    const syncNow = tab.page.getByRole('button', { name: 'Sync now' });
    await expect.poll(() => syncNow.isEnabled(), { timeout: 15_000 }).toBe(true);
    await syncNow.click();
    await tab.page.getByTestId('guard').waitFor({ timeout: 120_000 });
    const removed = tab.page.getByTestId('removed-paths');
    for (const f of gone) await removed.getByText(path.basename(f)).waitFor();
    // the page is usable again once the blocked job has ended (the button came back)
    await expect.poll(() => syncNow.isEnabled(), { timeout: 15_000 }).toBe(true);
    const blocked = (await lab.s.call('GET', '/disks/array/parity')).body;
    expect(blocked.lastSync).toMatchObject({ state: 'blocked', forced: false });
    expect(blocked.blockedSince).not.toBeNull();
    expect(await check(tab.page, 'array-01-parity-guard')).toEqual([]);

    await tab.page.getByRole('button', { name: 'Sync anyway' }).click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Sync anyway' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill('sync anyway');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill('SYNC ANYWAY');
    expect(await check(tab.page, 'array-02-parity-force-dialog')).toEqual([]);
    await confirm.click();
    await dialog.waitFor({ state: 'detached' });
    await tab.page.getByTestId('guard').waitFor({ state: 'detached', timeout: 180_000 });
    await tab.page.getByTestId('parity-state').filter({ hasText: 'in sync' }).waitFor({ timeout: 180_000 });
    const after = (await lab.s.call('GET', '/disks/array/parity')).body;
    expect(after).toMatchObject({ parity: 'in_sync', blockedSince: null });
    expect(after.lastSync).toMatchObject({ state: 'succeeded', forced: true });
  }, 400_000);

  it('a data disk destroyed outside the UI: offline on the dashboard within 15 s, the replace wizard brings every file back', async () => {
    const disk2 = lab.disks.data[1]!;
    const held = (
      await Promise.all(
        [...files.keys()].map(async (f) =>
          (await fs.stat(lab.real(`/mnt/disk2/${f}`)).catch(() => null)) ? f : null,
        ),
      )
    ).filter((f) => f !== null);
    expect(held.length).toBeGreaterThan(0); // the pool put some files there

    await go('/');
    await heading('Dashboard').waitFor();
    const slot = tab.page.locator('.slots li').filter({ hasText: '/mnt/disk2' });
    await slot.filter({ hasText: 'online' }).waitFor();
    await destroy(disk2, '/mnt/disk2');
    const gone = Date.now();
    await slot.filter({ hasText: 'offline' }).waitFor({ timeout: 15_000 });
    const shownAfterMs = Date.now() - gone;
    expect(shownAfterMs).toBeLessThan(15_000);
    expect(await check(tab.page, 'array-03-dashboard-offline')).toEqual([]);

    await go('/disks/replace');
    await heading('Replace a failed disk').waitFor();
    const spare = lab.spares[0]!.device;
    await tab.page.getByRole('button', { name: /Failed disk/ }).click();
    await tab.page.getByRole('option', { name: /^\/mnt\/disk2 .*offline/ }).click();
    await tab.page.getByRole('button', { name: /New disk/ }).click();
    await tab.page.getByRole('option', { name: new RegExp(`^${spare} `) }).click();
    await tab.page.getByRole('button', { name: 'Make the plan' }).click();
    await tab.page.getByRole('heading', { name: '2. Review and confirm' }).waitFor({ timeout: 60_000 });
    await tab.page.getByRole('heading', { name: 'Steps' }).waitFor();
    const plan = await lab.s.call('POST', '/disks/array/replace/plan', {
      mountpoint: '/mnt/disk2',
      device: spare,
    });
    expect(plan.status, plan.text).toBe(200);
    for (const step of plan.body.steps as string[])
      await tab.page.getByRole('listitem').filter({ hasText: step }).first().waitFor();
    for (const w of plan.body.warnings as Array<{ message: string }>)
      await tab.page.getByText(w.message).first().waitFor();
    expect(await check(tab.page, 'array-04-replace-plan')).toEqual([]);

    await tab.page.getByRole('button', { name: 'Start the replacement' }).click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.waitFor();
    expect(((await dialog.locator('.phrase').textContent()) ?? '').trim()).toBe(`ERASE ${spare}`);
    const start = dialog.getByRole('button', { name: 'Start' });
    expect(await start.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill(`ERASE ${spare}`);
    await start.click();
    await tab.page.getByRole('heading', { name: '3. Progress' }).waitFor({ timeout: 60_000 });
    await tab.page.getByRole('progressbar').first().waitFor();
    expect(await check(tab.page, 'array-05-replace-progress')).toEqual([]);
    await tab.page.getByRole('heading', { name: '4. Result' }).waitFor({ timeout: 600_000 });
    const message = tab.page.getByTestId('wizard-message');
    await message.waitFor();
    const job = (await lab.s.call('GET', '/jobs')).body.jobs[0];
    expect(job).toMatchObject({ type: 'disk.replace', state: 'succeeded' });
    expect(job.result.unrecoverable).toEqual([]);
    // snapraid counts what it rebuilt (the files, and the directories it had to create)
    expect(job.result.restoredFiles).toBeGreaterThanOrEqual(held.length);
    expect(await message.textContent()).toContain(`${job.result.restoredFiles} files rebuilt from parity`);
    expect(await check(tab.page, 'array-06-replace-result')).toEqual([]);

    // outside the browser: the slot on the new disk, every file of the pool back with its SHA-256
    const slots = (await lab.s.call('GET', '/disks/array')).body.disks as Array<Record<string, unknown>>;
    expect(slots.find((d) => d.mountpoint === '/mnt/disk2')).toMatchObject({ device: spare, mounted: true });
    const back = new Map<string, string>();
    for (const f of files.keys()) back.set(f, await sha256File(path.join(pool(), f)));
    expect(back).toEqual(files);
    for (const f of held) expect(await sha256File(lab.real(`/mnt/disk2/${f}`))).toBe(files.get(f));
  }, 900_000);

  it('no page broke its Content Security Policy or threw', () => {
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
