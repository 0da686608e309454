/**
 * The mover job over in-memory ports: what a run refuses (no cache, a disk not mounted), its setup,
 * the one skipped-files event, the restart message, and the daily schedule before the parity sync.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '@appliance/common';
import type { JobView } from '@appliance/jobs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MoverResult } from './core/report.ts';
import { type MoverRunParams, moverImplementation, moverJob, moverSchedule, moverSetup } from './job.ts';
import { memoryMoverDeps, memoryScheduleDeps } from './test-support.ts';

let work: string;
beforeEach(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'mover-job-'));
});
afterEach(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

const disk = (name: string) => ({ mountpoint: `/mnt/${name}`, path: path.join(work, name) });
const deps = () =>
  memoryMoverDeps({
    cache: disk('cache'),
    data: [disk('disk1'), disk('disk2')],
    shares: [{ name: 'media', createPolicy: 'mfs' }],
    journalDir: path.join(work, 'journal'),
    minFreeBytes: 4096,
  });

const result = (skipped: number): MoverResult => ({
  movedFiles: 3,
  movedBytes: 30,
  skippedCount: skipped,
  skippedByReason: {
    open_for_writing: skipped,
    exists_on_array: 0,
    no_space: 0,
    changed_during_move: 0,
    copy_failed: 0,
  },
  skipped: skipped > 0 ? [{ share: 'media', path: 'a.mkv', reason: 'open_for_writing' }] : [],
  shares: ['media'],
  removedDirs: 0,
  verify: 'size-mtime',
});
const view = (r: MoverResult | null) => ({ result: r }) as JobView<MoverRunParams, MoverResult>;

describe('the mover job', () => {
  it('is mover.run in the array group', () => {
    expect([moverJob.type, moverJob.groups]).toEqual(['mover.run', ['array']]);
  });

  it('refuses without a cache, and while a disk is not mounted (naming it); otherwise sets the run up', async () => {
    const none = memoryMoverDeps({ cache: null, data: [], shares: [], journalDir: work });
    await expect(moverSetup(none)).rejects.toMatchObject({ code: 'no_cache', status: 409 });
    const d = deps();
    d.missing.add('/mnt/disk2');
    const err = await moverSetup(d).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'array_degraded', details: { missing: ['/mnt/disk2'] } });
    d.missing.clear();
    expect(await moverSetup(d)).toMatchObject({
      cacheRoot: path.join(work, 'cache'),
      dataDisks: [path.join(work, 'disk1'), path.join(work, 'disk2')],
      minFreeBytes: 4096,
      shares: [{ name: 'media', createPolicy: 'mfs' }],
    });
  });

  it('raises one mover_skipping_files after a run with skips, none after a clean run', async () => {
    const d = deps();
    const impl = moverImplementation(d);
    await impl.after?.(view(result(0)));
    expect(d.raised).toEqual([]);
    await impl.after?.(view(result(1)));
    expect(d.raised.map((e) => e.eventType)).toEqual(['mover_skipping_files']);
    expect(d.raised[0]!.message).toContain('/mnt/user/media/a.mkv');
  });

  it('after a restart with no batch journalled: nothing was half moved', async () => {
    const r = await moverImplementation(deps()).recover?.(view(null));
    expect(r?.message).toMatch(/nothing was half moved/);
  });
});

describe('the mover schedule', () => {
  it('daily at the set time from the array’s creation, before the sync; off when disabled, without an array or a cache', async () => {
    const d = memoryScheduleDeps();
    const s = moverSchedule(d);
    expect(s.order).toBeLessThan(0);
    expect(s.nextDue(null)).toBeNull();
    d.since = new Date('2026-11-25T10:00:00Z');
    expect(s.nextDue(null)).toEqual(new Date('2026-11-26T02:00:00Z'));
    expect(s.nextDue(new Date('2026-11-26T02:00:00Z'))).toEqual(new Date('2026-11-27T02:00:00Z'));
    d.cache = false;
    expect(s.nextDue(null)).toBeNull();
    d.cache = true;
    d.current = { enabled: false, time: '02:00', verify: 'sha256' };
    expect(s.nextDue(null)).toBeNull();
    d.current = { enabled: true, time: '01:30', verify: 'sha256' };
    expect(await s.run(new Date())).toBe('job-1');
    expect(d.started).toEqual([{ type: 'mover.run', params: { verify: 'sha256' }, trigger: 'schedule' }]);
  });
});
