import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startPrivateDockerd } from './dockerd.ts';
import { labTargetGuard } from './guard.ts';
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

  it('destroy after a detach leaves alone the disk that took the device number since', async () => {
    await requirePrerequisites({ root: true, tools: ['losetup', 'mkfs.xfs', 'mount', 'umount'] });
    const gone = await createLoopDisk({ sizeBytes: 320 * 1024 * 1024 });
    const other = await createLoopDisk({ sizeBytes: 320 * 1024 * 1024, filesystem: 'xfs' });
    const at = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-reuse-'));
    const image = other.image;
    await run('losetup', ['-d', gone.device]); // the test detaches its disk itself …
    await run('losetup', ['-d', other.device]);
    await run('losetup', [gone.device, image]); // … and another process's disk takes the number
    try {
      await run('mount', [gone.device, at]);
      await gone.destroy();
      expect((await run('losetup', ['-n', '-O', 'BACK-FILE', gone.device])).stdout.trim()).toBe(image);
      expect(await fs.readFile('/proc/self/mounts', 'utf8')).toContain(`${gone.device} ${at} `);
    } finally {
      await run('umount', [at]).catch(() => undefined);
      await run('losetup', ['-d', gone.device]).catch(() => undefined);
      await other.destroy();
      await fs.rm(at, { recursive: true, force: true });
    }
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

describe('labTargetGuard', () => {
  it('lets a tool reach a lab loop disk (and its partition) only', async () => {
    const labDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-guard-'));
    const shim = path.join(labDir, 'shim');
    await fs.writeFile(shim, `#!/bin/sh\n${labTargetGuard(labDir)}echo "allowed $last"\n`, { mode: 0o755 });
    const outside = await createLoopDisk({ sizeBytes: 16 * 1024 * 1024 });
    const inside = await createLoopDisk({
      sizeBytes: 64 * 1024 * 1024,
      imageDir: labDir,
      partitioned: true,
      filesystem: 'vfat',
    });
    const attempt = (arg: string) =>
      run(shim, ['-f', arg]).then(
        (r) => ({ code: 0, out: r.stdout.trim() }),
        (e: { code: number; stderr: string }) => ({ code: e.code, out: e.stderr.trim() }),
      );
    try {
      expect(await attempt(inside.device)).toEqual({ code: 0, out: `allowed ${inside.device}` });
      expect(await attempt(`${inside.device}p1`)).toEqual({ code: 0, out: `allowed ${inside.device}p1` });
      expect(await attempt(outside.device)).toEqual({
        code: 97,
        out: `guard: ${outside.device} is not a lab disk`,
      });
      expect(await attempt('/dev/sda')).toEqual({ code: 97, out: 'guard: refusing /dev/sda' });
      expect(await attempt(`${labDir}/../etc`)).toMatchObject({ code: 97 });
    } finally {
      await inside.destroy();
      await outside.destroy();
      await fs.rm(labDir, { recursive: true, force: true });
    }
  });
});

describe('private dockerd', () => {
  it('leaves no network bridge behind in the host when it stops', async () => {
    await requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'ip'] });
    const d = await startPrivateDockerd();
    let bridge = '';
    try {
      const id = (await d.docker(['network', 'create', 'lab-leak-check'])).stdout.trim();
      bridge = `br-${id.slice(0, 12)}`;
      await run('ip', ['link', 'show', bridge]); // the daemon made it
    } finally {
      await d.stop();
    }
    await expect(run('ip', ['link', 'show', bridge])).rejects.toThrow();
  }, 120_000);
});
