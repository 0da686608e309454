import fs from 'node:fs/promises';
import type { FsUsage } from '../core/space.ts';

/**
 * statfs of the filesystem holding `file`, as `df` reports it: used = blocks − free blocks,
 * free = blocks available to unprivileged writers. statfs reads the filesystem's in-memory
 * counters: it never spins up a sleeping disk.
 */
export async function statfsUsage(file: string): Promise<FsUsage> {
  const s = await fs.statfs(file, { bigint: true });
  const size = s.bsize;
  return {
    totalBytes: Number(s.blocks * size),
    usedBytes: Number((s.blocks - s.bfree) * size),
    freeBytes: Number(s.bavail * size),
  };
}
