import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCommandRunner, createHostPaths } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardMountpoint } from './mountpoint-guard.ts';

const run = promisify(execFile);

/** The real `chattr`, real mounts (a tmpfs for a disk, a ramfs for a filesystem without the flag). */
describe('guardMountpoint (issue 32)', () => {
  let root: string;
  const mounted: string[] = [];
  const runner = createCommandRunner();
  const paths = () => createHostPaths({ root });
  const guard = (mp: string) => guardMountpoint(runner, paths(), mp, { scratch: path.join(root, 'scratch') });
  const flags = async (dir: string) => (await run('lsattr', ['-d', dir])).stdout.split(/\s+/)[0] ?? '';

  beforeAll(async () => {
    await requirePrerequisites({ root: true, tools: ['chattr', 'lsattr', 'mount', 'umount'] });
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'mountpoint-guard-'));
  });

  afterAll(async () => {
    for (const t of mounted.reverse()) await run('umount', ['-l', t]).catch(() => undefined);
    for (const d of ['disk1', 'disk2', 'disk3', 'ram/disk4'])
      await run('chattr', ['-i', path.join(root, 'mnt', d)]).catch(() => undefined);
    await fs.rm(root, { recursive: true, force: true });
  });

  it('an empty directory (created when missing) is sealed: nothing can be created in it, a mount over it works', async () => {
    const g = await guard('/mnt/disk1');
    expect(g).toEqual({
      mountpoint: '/mnt/disk1',
      mounted: false,
      entries: [],
      count: 0,
      seal: 'sealed',
      error: null,
    });
    const dir = path.join(root, 'mnt/disk1');
    expect(await flags(dir)).toContain('i');
    await expect(fs.writeFile(path.join(dir, 'x'), 'x')).rejects.toMatchObject({ code: 'EPERM' });
    await expect(fs.mkdir(path.join(dir, 'd'))).rejects.toMatchObject({ code: 'EPERM' });
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'disk', dir]);
    mounted.push(dir);
    await fs.writeFile(path.join(dir, 'on-the-disk'), 'x');
    // under the mounted "disk": the directory itself, looked at through a bind of its parent
    expect(await guard('/mnt/disk1')).toMatchObject({ mounted: true, entries: [], count: 0, seal: 'sealed' });
    expect(await fs.readdir(path.join(root, 'scratch'))).toEqual([]);
    expect(await fs.readFile('/proc/self/mountinfo', 'utf8')).not.toContain(path.join(root, 'scratch'));
  });

  it('a directory holding files is left writable and says what it holds, mounted over or not', async () => {
    const dir = path.join(root, 'mnt/disk2');
    await fs.mkdir(dir, { recursive: true });
    for (let i = 0; i < 25; i++) await fs.writeFile(path.join(dir, `f${String(i).padStart(2, '0')}`), 'x');
    const open = await guard('/mnt/disk2');
    expect(open).toMatchObject({ mounted: false, count: 25, seal: 'not_empty', error: null });
    expect(open.entries).toEqual(Array.from({ length: 20 }, (_, i) => `f${String(i).padStart(2, '0')}`));
    expect(await flags(dir)).not.toContain('i');
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'disk', dir]);
    mounted.push(dir);
    expect(await guard('/mnt/disk2')).toMatchObject({ mounted: true, count: 25, seal: 'not_empty' });
  });

  it('a filesystem without the immutable flag (ramfs) is reported unsupported, not an error', async () => {
    const ram = path.join(root, 'mnt/ram');
    await fs.mkdir(ram, { recursive: true });
    await run('mount', ['-t', 'ramfs', 'ramfs', ram]);
    mounted.push(ram);
    const g = await guard('/mnt/ram/disk4');
    expect(g).toMatchObject({ mounted: false, entries: [], seal: 'unsupported' });
    expect(g.error).toMatch(/Operation not supported/);
  });
});
