import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMountPoint, mountPoints } from './mounts.ts';

const MOUNTINFO = [
  '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
  '98 22 7:3 / /srv/mnt/disk\\0401 rw,relatime shared:40 - ext4 /dev/loop3 rw',
  '',
].join('\n');

describe('mountPoints', () => {
  it('lists field 5 of each line, with the octal escapes decoded', () => {
    expect(mountPoints(MOUNTINFO)).toEqual(['/', '/srv/mnt/disk 1']);
  });
});

describe('isMountPoint', () => {
  it('answers from a mountinfo file, for the path as given or with a trailing slash', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parity-mounts-'));
    try {
      const file = path.join(dir, 'mountinfo');
      await fs.writeFile(file, MOUNTINFO);
      expect(await isMountPoint('/srv/mnt/disk 1', file)).toBe(true);
      expect(await isMountPoint('/srv/mnt/disk 1/', file)).toBe(true);
      expect(await isMountPoint('/srv/mnt/disk2', file)).toBe(false);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reads this process’s mounts by default: / is one, a fresh directory is not', async () => {
    expect(await isMountPoint('/')).toBe(true);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parity-mounts-'));
    try {
      expect(await isMountPoint(dir)).toBe(false);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
