import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLoopDisk, edgeBytes } from './loop-disks.ts';
import { requirePrerequisites } from './prereq.ts';

const run = promisify(execFile);

describe('loop disks', () => {
  it('creates a formatted, labelled loop disk and detaches it', async () => {
    await requirePrerequisites({ root: true, tools: ['losetup', 'mkfs.xfs', 'blkid'] });
    const disk = await createLoopDisk({ sizeBytes: 320 * 1024 * 1024, filesystem: 'xfs', label: 'labdisk' });
    try {
      const { stdout } = await run('blkid', ['-p', '-o', 'export', disk.device]);
      expect(stdout).toContain('TYPE=xfs');
      expect(stdout).toContain('LABEL=labdisk');
      expect((await edgeBytes(disk.device)).length).toBe(2 * 1024 * 1024);
    } finally {
      await disk.destroy();
    }
    const { stdout } = await run('losetup', ['-a']);
    expect(stdout).not.toContain(disk.image);
  });

  it('puts the filesystem on a first partition when asked', async () => {
    const disk = await createLoopDisk({
      sizeBytes: 64 * 1024 * 1024,
      filesystem: 'vfat',
      label: 'UNRAID',
      partitioned: true,
    });
    try {
      const { stdout } = await run('blkid', ['-p', '-o', 'export', `${disk.device}p1`]);
      expect(stdout).toContain('LABEL=UNRAID');
    } finally {
      await disk.destroy();
    }
  });
});
