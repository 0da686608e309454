/**
 * The mover's API operations over in-memory ports: which disks and shares a run works on, the
 * status view, a run on demand (refused without a cache) and the audited settings replacement.
 */
import { Refusal } from '@appliance/common';
import type { JobView } from '@appliance/jobs';
import { describe, expect, it } from 'vitest';
import type { MoverResult } from './core/report.ts';
import type { MoverRunParams } from './job.ts';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  diskPresence,
  moverDisks,
  moverShares,
  moverStatus,
  runMoverNow,
  setMoverSettings,
} from './operations.ts';
import { memoryMoverService } from './test-support.ts';

const slot = (role: string, roleIndex: number, removalState: string | null = null) => ({
  role,
  roleIndex,
  mountpoint: role === 'cache' ? '/mnt/cache' : `/mnt/${role}${roleIndex}`,
  removalState,
});

const ended = (over: Partial<JobView<MoverRunParams, MoverResult>>) =>
  ({
    id: 'j1',
    type: 'mover.run',
    state: 'succeeded',
    trigger: 'schedule',
    startedAt: '2026-01-01T02:00:00.000Z',
    endedAt: '2026-01-01T02:01:00.000Z',
    result: null,
    error: null,
    ...over,
  }) as JobView<MoverRunParams, MoverResult>;

describe('moverDisks / moverShares', () => {
  it('the cache and the data disks by role index; a disk being removed and parity take no files', () => {
    const slots = [
      slot('data', 2),
      slot('parity', 1),
      slot('data', 1),
      slot('data', 3, 'emptying'),
      slot('cache', 1),
    ];
    expect(moverDisks(slots, (m) => `/host${m}`)).toEqual({
      cache: { mountpoint: '/mnt/cache', path: '/host/mnt/cache' },
      data: [
        { mountpoint: '/mnt/data1', path: '/host/mnt/data1' },
        { mountpoint: '/mnt/data2', path: '/host/mnt/data2' },
      ],
    });
  });

  it('no cache: null', () => {
    expect(moverDisks([slot('data', 1)], (m) => m)).toBeNull();
  });

  it('only cache-then-move shares, with their create policies', () => {
    expect(
      moverShares([
        { name: 'media', cacheMode: 'cache-then-move', createPolicy: 'mfs' },
        { name: 'docs', cacheMode: 'array-only', createPolicy: 'lfs' },
        { name: 'tmp', cacheMode: 'cache-only', createPolicy: 'ff' },
      ]),
    ).toEqual([{ name: 'media', createPolicy: 'mfs' }]);
  });
});

describe('moverStatus', () => {
  it('without a cache: not configured, no shares, never ran', () => {
    const p = memoryMoverService();
    expect(moverStatus(p)).toEqual({
      configured: false,
      shares: [],
      settings: { enabled: true, time: '02:00', verify: 'size-mtime' },
      running: null,
      lastRun: null,
      nextRun: null,
    });
  });

  it('the last ended run with its counts and error; a running job is shown beside it', () => {
    const p = memoryMoverService();
    p.slotRows = [slot('cache', 1), slot('data', 1)];
    p.shareRows = [{ name: 'media', cacheMode: 'cache-then-move', createPolicy: 'mfs' }];
    p.nextRun = () => '2026-01-02T02:00:00.000Z';
    p.views = [
      ended({
        result: {
          movedFiles: 2,
          movedBytes: 20,
          skippedCount: 1,
          skippedByReason: { open_for_writing: 1 },
          skipped: [{ share: 'media', path: 'a', reason: 'open_for_writing' }],
        } as unknown as MoverResult,
      }),
      ended({ id: 'j2', state: 'failed', error: { code: 'array_degraded', message: 'm' } as never }),
      ended({ id: 'j3', state: 'running' }),
    ];
    const s = moverStatus(p);
    expect(s.configured).toBe(true);
    expect(s.shares).toEqual(['media']);
    expect(s.running?.id).toBe('j3');
    expect(s.nextRun).toBe('2026-01-02T02:00:00.000Z');
    expect(s.lastRun).toMatchObject({
      jobId: 'j2',
      state: 'failed',
      movedFiles: null,
      skipped: [],
      error: { code: 'array_degraded', message: 'm' },
    });
    p.views = p.views.slice(0, 1);
    expect(moverStatus(p).lastRun).toMatchObject({
      jobId: 'j1',
      movedFiles: 2,
      skippedCount: 1,
      error: null,
    });
  });
});

describe('runMoverNow', () => {
  it('refuses without a cache (no_cache) and starts nothing', async () => {
    const p = memoryMoverService();
    const err = await runMoverNow(p, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Refusal);
    expect((err as Refusal).code).toBe('no_cache');
    expect(p.started).toEqual([]);
  });

  it("starts with the settings' verification unless the request gives one, as the actor", async () => {
    const p = memoryMoverService();
    p.slotRows = [slot('cache', 1)];
    p.current = { ...p.current, verify: 'sha256' };
    await runMoverNow(p, {});
    await runMoverNow(p, { verify: 'size-mtime' });
    expect(p.started).toEqual([
      { params: { verify: 'sha256' }, target: '/mnt/cache', actor: 'admin' },
      { params: { verify: 'size-mtime' }, target: '/mnt/cache', actor: 'admin' },
    ]);
  });
});

describe('setMoverSettings', () => {
  it('stores the settings and audits only the fields that changed', async () => {
    const p = memoryMoverService();
    const stored = await setMoverSettings(p, { enabled: true, time: '01:30', verify: 'size-mtime' });
    expect(stored).toEqual({ enabled: true, time: '01:30', verify: 'size-mtime' });
    expect(p.audits).toEqual([
      { operation: 'settings.mover', target: 'mover', details: { changed: { time: '01:30' } } },
    ]);
  });
});

describe('diskPresence', () => {
  it('plain directories: an existing directory counts, a file or nothing does not; else the mount check', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mover-presence-'));
    try {
      await fs.writeFile(path.join(dir, 'file'), '');
      const plain = diskPresence({ plainDirectories: true, isMounted: async () => true });
      const at = (name: string) => ({ mountpoint: `/mnt/${name}`, path: path.join(dir, name) });
      expect(
        await Promise.all([plain({ mountpoint: '/mnt/x', path: dir }), plain(at('file')), plain(at('none'))]),
      ).toEqual([true, false, false]);
      const asked: string[] = [];
      const mounted = diskPresence({
        plainDirectories: false,
        isMounted: async (m) => {
          asked.push(m);
          return m === '/mnt/a';
        },
      });
      expect([await mounted({ mountpoint: '/mnt/a', path: dir }), await mounted(at('b'))]).toEqual([
        true,
        false,
      ]);
      expect(asked).toEqual(['/mnt/a', '/mnt/b']);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
