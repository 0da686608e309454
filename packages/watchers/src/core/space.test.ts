import { describe, expect, it } from 'vitest';
import type { HeldCondition } from './model.ts';
import { DEFAULT_SETTINGS } from './settings.ts';
import { evaluateSpace, type FsUsage, type SpaceFacts } from './space.ts';

const GiB = 1024 ** 3;
const usage = (usedGiB: number, freeGiB: number): FsUsage => ({
  totalBytes: (usedGiB + freeGiB) * GiB,
  usedBytes: usedGiB * GiB,
  freeBytes: freeGiB * GiB,
});
const facts = (over: Partial<SpaceFacts> = {}): SpaceFacts => ({
  pool: { mountpoint: '/mnt/user', usage: usage(50, 50) },
  dataDisks: [
    { role: 'data', roleIndex: 1, mountpoint: '/mnt/disk1', model: 'M', serial: 'S1', usage: usage(10, 90) },
  ],
  minFreeSpaceBytes: 4 * GiB,
  ...over,
});
const th = DEFAULT_SETTINGS.space;
const heldKey = (key: string): HeldCondition => ({
  key,
  eventType: 'x',
  subject: 's',
  value: null,
  message: '',
  since: '2026-01-01T00:00:00.000Z',
});

describe('evaluateSpace', () => {
  it('holds nothing under the thresholds', () => {
    expect(evaluateSpace(facts(), th, []).conditions).toEqual([]);
  });

  it('the pool at or over its threshold: value, threshold, free space and what to do', () => {
    const { conditions } = evaluateSpace(
      facts({ pool: { mountpoint: '/mnt/user', usage: usage(92, 8) } }),
      th,
      [],
    );
    expect(conditions).toHaveLength(1);
    expect(conditions[0]).toMatchObject({
      key: 'space:pool',
      eventType: 'pool_above_threshold',
      value: '92 %',
    });
    expect(conditions[0]!.message).toBe(
      'The pool /mnt/user is 92 % full (threshold 90 %): 8.0 GiB free of 100 GiB. Free space by deleting or moving files, or add a data disk (or upgrade one to a larger disk) before it fills up.',
    );
  });

  it('a held pool condition clears only 2 points under the threshold (no flapping)', () => {
    const at89 = facts({ pool: { mountpoint: '/mnt/user', usage: usage(89, 11) } });
    expect(evaluateSpace(at89, th, []).conditions).toEqual([]);
    expect(evaluateSpace(at89, th, [heldKey('space:pool')]).conditions).toHaveLength(1);
    const at87 = facts({ pool: { mountpoint: '/mnt/user', usage: usage(87, 13) } });
    expect(evaluateSpace(at87, th, [heldKey('space:pool')]).conditions).toEqual([]);
  });

  it('the cache over its threshold names the cache disk', () => {
    const { conditions } = evaluateSpace(
      facts({
        cache: {
          role: 'cache',
          roleIndex: 1,
          mountpoint: '/mnt/cache',
          model: 'Samsung SSD',
          serial: 'C1',
          usage: usage(95, 5),
        },
      }),
      th,
      [],
    );
    expect(conditions[0]).toMatchObject({
      key: 'space:cache',
      eventType: 'cache_above_threshold',
      value: '95 %',
    });
    expect(conditions[0]!.message).toContain('cache (/mnt/cache, Samsung SSD serial C1)');
  });

  it('a data disk under factor × minfreespace nears it; under 1× the pool skips it', () => {
    const near = facts({
      dataDisks: [
        {
          role: 'data',
          roleIndex: 2,
          mountpoint: '/mnt/disk2',
          model: 'M',
          serial: 'S2',
          usage: usage(94, 6),
        },
      ],
    });
    const [c] = evaluateSpace(near, th, []).conditions;
    expect(c).toMatchObject({
      key: 'space:disk:/mnt/disk2',
      eventType: 'disk_near_minfreespace',
      value: '6.0 GiB free',
    });
    expect(c!.message).toContain('near the pool');
    expect(c!.message).toContain('warning below 2 × that, 8.0 GiB');
    const below = facts({
      dataDisks: [{ role: 'data', roleIndex: 2, mountpoint: '/mnt/disk2', usage: usage(97, 3) }],
    });
    expect(evaluateSpace(below, th, []).conditions[0]!.message).toContain('no longer places new files');
  });

  it('an unmeasured disk or pool is unobserved: its held condition is kept', () => {
    const o = evaluateSpace(
      facts({
        pool: { mountpoint: '/mnt/user', usage: null },
        dataDisks: [{ mountpoint: '/mnt/disk1', usage: null }],
      }),
      th,
      [],
    );
    expect(o.unobserved).toEqual(['space:pool', 'space:disk:/mnt/disk1']);
  });
});
