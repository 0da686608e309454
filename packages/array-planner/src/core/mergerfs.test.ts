import { describe, expect, it } from 'vitest';
import { minFreeSpaceBytes } from './mergerfs.ts';

const MiB = 1024 * 1024;

describe('minFreeSpaceBytes (the mover keeps what the pool keeps free)', () => {
  it('is a twentieth of the smallest branch in bytes, parity ignored', () => {
    const slots = [
      { role: 'parity', sizeBytes: 100 * MiB },
      { role: 'data', sizeBytes: 320 * MiB },
      { role: 'cache', sizeBytes: 640 * MiB },
    ];
    expect(minFreeSpaceBytes(slots)).toBe(16 * MiB);
  });

  it('is 4 GiB on real disks', () => {
    expect(minFreeSpaceBytes([{ role: 'data', sizeBytes: 4e12 }])).toBe(4096 * MiB);
  });

  it('counts an unrecorded size as 0 bytes: the 1 MiB floor', () => {
    expect(
      minFreeSpaceBytes([
        { role: 'data', sizeBytes: null },
        { role: 'data', sizeBytes: 4e12 },
      ]),
    ).toBe(MiB);
  });
});
