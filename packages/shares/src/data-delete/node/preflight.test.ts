/** The pre-flight against real directories (plain-directory sandbox) and the real findmnt. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner, createHostPaths, type HostPaths } from '@appliance/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planBranches } from '../core/branches.ts';
import type { DataDeleteSlot } from '../core/model.ts';
import { preflightBranches } from './preflight.ts';

let root: string;
let paths: HostPaths;
const runner = createCommandRunner();

const slot = (role: 'data' | 'cache', n: number): DataDeleteSlot => ({
  role,
  roleIndex: n,
  mountpoint: role === 'cache' ? '/mnt/cache' : `/mnt/disk${n}`,
  fsUuid: `uuid-${n}`,
  removalState: null,
});
const SLOTS = [slot('data', 1), slot('data', 2), slot('data', 3), slot('cache', 1)];

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-preflight-'));
  paths = createHostPaths({ root });
  for (const mp of ['/mnt/disk1', '/mnt/disk2', '/mnt/disk3', '/mnt/cache'])
    fs.mkdirSync(paths.real(mp), { recursive: true });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('preflightBranches', () => {
  it('plain directories: sees present, absent, linked and non-directory branches, and untouched directories', async () => {
    fs.mkdirSync(paths.real('/mnt/disk1/media'));
    fs.symlinkSync(paths.real('/mnt/disk1/media'), paths.real('/mnt/disk2/media'));
    fs.writeFileSync(paths.real('/mnt/disk3/media'), 'a file');
    fs.mkdirSync(paths.real('/mnt/cache/media'));
    const plan = planBranches({ name: 'media', cacheMode: 'array-only' }, SLOTS);
    const pre = await preflightBranches(plan, { paths, runner, plainDirectories: true });
    expect(pre.observations.map((o) => [o.disk, o.mounted, o.mountedUuid, o.branch])).toEqual([
      ['/mnt/disk1', true, null, 'directory'],
      ['/mnt/disk2', true, null, 'symlink'],
      ['/mnt/disk3', true, null, 'not_directory'],
    ]);
    const st = fs.statSync(paths.real('/mnt/disk1/media'));
    expect(pre.present).toEqual([
      {
        disk: '/mnt/disk1',
        path: '/mnt/disk1/media',
        realPath: paths.real('/mnt/disk1/media'),
        dev: st.dev,
        ino: st.ino,
      },
    ]);
    expect(pre.untouched).toEqual([{ disk: '/mnt/cache', path: '/mnt/cache/media' }]);
  });

  it('plain directories: a missing mountpoint directory is not mounted; the branch is not looked at', async () => {
    fs.rmSync(paths.real('/mnt/disk2'), { recursive: true });
    const plan = planBranches({ name: 'media', cacheMode: 'array-only' }, SLOTS);
    const pre = await preflightBranches(plan, { paths, runner, plainDirectories: true });
    expect(pre.observations[1]).toMatchObject({ disk: '/mnt/disk2', mounted: false, branch: 'absent' });
  });

  it('with mount checks, a directory that is not a mount point is not mounted (findmnt)', async () => {
    fs.mkdirSync(paths.real('/mnt/disk1/media'));
    const plan = planBranches({ name: 'media', cacheMode: 'cache-only' }, SLOTS);
    const pre = await preflightBranches(plan, { paths, runner, plainDirectories: false });
    expect(pre.observations).toEqual([
      {
        disk: '/mnt/cache',
        path: '/mnt/cache/media',
        mounted: false,
        mountedUuid: null,
        expectedUuid: 'uuid-1',
        branch: 'absent',
      },
    ]);
    expect(pre.present).toEqual([]);
    expect(pre.untouched).toEqual([{ disk: '/mnt/disk1', path: '/mnt/disk1/media' }]);
  });
});
