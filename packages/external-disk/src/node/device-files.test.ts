/** Device paths under a sandbox's device directory: resolved and reported logically; held read-only. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deviceFiles } from './device-files.ts';

let dev: string;
beforeEach(async () => {
  dev = await fs.mkdtemp(path.join(os.tmpdir(), 'device-files-'));
  await fs.writeFile(path.join(dev, 'sdz'), '');
  await fs.mkdir(path.join(dev, 'disk', 'by-id'), { recursive: true });
  await fs.symlink('../../sdz', path.join(dev, 'disk', 'by-id', 'usb-stick'));
});
afterEach(async () => {
  await fs.rm(dev, { recursive: true, force: true });
});

describe('deviceFiles', () => {
  it('resolves a symlink under the device directory and answers a logical /dev path', async () => {
    expect(await deviceFiles(dev).realpath('/dev/disk/by-id/usb-stick')).toBe('/dev/sdz');
  });

  it('a missing device: realpath rejects, holding it is a no-op release', async () => {
    const files = deviceFiles(dev);
    await expect(files.realpath('/dev/sdq')).rejects.toThrow();
    expect(() => files.holdDevice('/dev/sdq')()).not.toThrow();
  });

  it('holds an existing device open until the release', async () => {
    const before = (await fs.readdir('/proc/self/fd')).length;
    const release = deviceFiles(dev).holdDevice('/dev/sdz');
    expect((await fs.readdir('/proc/self/fd')).length).toBe(before + 1);
    release();
    expect((await fs.readdir('/proc/self/fd')).length).toBe(before);
  });
});
