// The data upgrade's size refusal (issue 32): the files "do not fit" (they may never have), sizes
// in words a person reads, and what to do.
import { describe, expect, it } from 'vitest';
import { doesNotFit } from './fit.ts';

const GiB = 1024 ** 3;
const plan = (previousUsedBytes: number | null, role = 'data') => ({
  role,
  mountpoint: '/mnt/disk2',
  replacementDevice: '/dev/sdz',
  previousUsedBytes,
  sizeBytes: 100 * GiB,
});

describe('doesNotFit', () => {
  it('refuses files that do not fit on the new disk, saying so without "no longer"', () => {
    const r = doesNotFit(plan(99 * GiB));
    expect(r).toMatchObject({ status: 409, code: 'invalid_plan', details: { reason: 'does_not_fit' } });
    expect(r?.message).toBe(
      'The files on /mnt/disk2 (99.0 GiB) do not fit on /dev/sdz (98.0 GiB usable of 100.0 GiB: 2 % is kept for filesystem overhead); nothing was written. Choose a larger disk, or move files off /mnt/disk2 first.',
    );
    expect(r?.message).not.toContain('no longer');
  });

  it('lets files that fit, a parity disk and an unknown usage through', () => {
    expect(doesNotFit(plan(98 * GiB))).toBeNull();
    expect(doesNotFit(plan(99 * GiB, 'parity'))).toBeNull();
    expect(doesNotFit(plan(null))).toBeNull();
  });
});
