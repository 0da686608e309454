import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError, type CommandRunner, createCommandRunner } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessSnapshot } from '../core/effective-access.ts';
import { renderSmbConf } from '../core/render-smb-conf.ts';
import { createSmbConfWriter } from './smb-conf-writer.ts';

const on = { enabled: true, browseable: true };
const users = [
  { id: 'a', username: 'alice' },
  { id: 'b', username: 'Bob' },
  { id: 'c', username: 'carol_2' },
  { id: 'd', username: '_dave-x' },
];
const base: AccessSnapshot = {
  shares: [
    { name: 'media', smb: on },
    { name: 'backups', smb: { enabled: true, browseable: false } },
    { name: 'tv-shows_2', smb: on },
  ],
  users,
  groups: [{ id: 'family', memberUserIds: ['b', 'c', 'd'] }],
  userGrants: [],
  groupGrants: [],
};
const mixedUsers: AccessSnapshot = {
  ...base,
  userGrants: [
    { shareName: 'media', userId: 'a', access: 'read-write' },
    { shareName: 'media', userId: 'b', access: 'read-only' },
    { shareName: 'tv-shows_2', userId: 'c', access: 'none' },
    { shareName: 'tv-shows_2', userId: 'd', access: 'read-only' },
  ],
};
const withGroups: AccessSnapshot = {
  ...mixedUsers,
  groupGrants: [
    { shareName: 'media', groupId: 'family', access: 'read-write' },
    { shareName: 'backups', groupId: 'family', access: 'read-only' },
  ],
};

/** Counts testparm runs while running the real tool. */
function countingRunner(): CommandRunner & { testparmRuns: () => number } {
  const real = createCommandRunner();
  let runs = 0;
  return {
    resolve: (cmd) => real.resolve(cmd),
    run(cmd, args, opts) {
      if (cmd === 'testparm') runs += 1;
      return real.run(cmd, args, opts);
    },
    testparmRuns: () => runs,
  };
}

const testparm = (file: string): { ok: boolean; stderr: string } => {
  try {
    execFileSync('testparm', ['-s', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    return { ok: true, stderr: '' };
  } catch (err) {
    return { ok: false, stderr: String((err as { stderr?: Buffer }).stderr) };
  }
};

let dir: string;
beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['testparm', 'chattr'] });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'smbconf-'));
});
afterAll(async () => {
  if (dir) {
    execFileSync('chattr', ['-R', '-i', dir]);
    await fs.rm(dir, { recursive: true, force: true });
  }
});

const freshDir = async (name: string) => {
  const d = path.join(dir, name, 'samba');
  return { d, file: path.join(d, 'smb.conf') };
};
const leftovers = async (d: string) => (await fs.readdir(d)).filter((f) => f !== 'smb.conf');

describe.each([
  ['native', true],
  ['node:fs', false],
] as const)('createSmbConfWriter with the real testparm, %s file steps', (kind, native) => {
  const fresh = (name: string) => freshDir(`${kind}-${name}`);
  it('uses the file steps asked for', () => {
    const writer = createSmbConfWriter({
      native,
      file: path.join(dir, 'unused', 'smb.conf'),
      runner: countingRunner(),
    });
    expect(writer.files).toBe(native ? 'native' : 'js');
  });

  it('writes files the real testparm accepts: no grants, mixed user grants, group grants', async () => {
    const { d, file } = await fresh('valid');
    const runner = countingRunner();
    const writer = createSmbConfWriter({ native, file, runner });
    for (const snap of [base, mixedUsers, withGroups]) {
      const text = renderSmbConf(snap, { poolDir: path.join(dir, 'mnt/user') });
      expect(await writer.write(text)).toBe('written');
      expect(await fs.readFile(file, 'utf8')).toBe(text);
      const check = testparm(file);
      expect(check).toEqual({ ok: true, stderr: '' });
    }
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain('[media]\n   path = ');
    // bob's own read-only beats the group's read-write.
    expect(text).toContain(
      '   valid users = _dave-x alice bob carol_2\n   write list = _dave-x alice carol_2\n',
    );
    expect((await fs.stat(file)).mode & 0o777).toBe(0o644);
    expect(await leftovers(d)).toEqual([]);
    expect(runner.testparmRuns()).toBe(3);
  });

  it('writes nothing when the bytes are unchanged', async () => {
    const { file } = await fresh('same');
    const writer = createSmbConfWriter({ native, file, runner: countingRunner() });
    const text = renderSmbConf(mixedUsers);
    await writer.write(text);
    const before = await fs.stat(file);
    expect(await writer.write(text)).toBe('unchanged');
    expect((await fs.stat(file)).ino).toBe(before.ino);
  });

  it('skips testparm when only the user lists changed since the last accepted file', async () => {
    const { file } = await fresh('skip');
    const runner = countingRunner();
    const writer = createSmbConfWriter({ native, file, runner });
    await writer.write(renderSmbConf(mixedUsers));
    const swapped: AccessSnapshot = {
      ...mixedUsers,
      userGrants: [
        { shareName: 'media', userId: 'a', access: 'read-only' },
        { shareName: 'media', userId: 'b', access: 'read-write' },
        { shareName: 'tv-shows_2', userId: 'c', access: 'read-only' },
        { shareName: 'tv-shows_2', userId: 'd', access: 'none' },
      ],
    };
    expect(await writer.write(renderSmbConf(swapped))).toBe('written');
    expect(runner.testparmRuns()).toBe(1);
    // A structural change (a share closes) is validated again.
    await writer.write(renderSmbConf(base));
    expect(runner.testparmRuns()).toBe(2);
  });

  it('keeps the old file and removes the candidate when testparm refuses the new one', async () => {
    const { d, file } = await fresh('invalid');
    const writer = createSmbConfWriter({ native, file, runner: countingRunner() });
    const good = renderSmbConf(withGroups);
    await writer.write(good);
    const err = await writer.write(`${good}   bogus parameter = 1\n`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).toBody()).toMatchObject({
      code: 'smb_regeneration_failed',
      details: { reason: 'validation_failed' },
    });
    expect((err as AppError).status).toBe(500);
    expect(await fs.readFile(file, 'utf8')).toBe(good);
    expect(await leftovers(d)).toEqual([]);
  });

  it('keeps the old file when the directory is immutable (chattr +i)', async () => {
    const { d, file } = await fresh('immutable');
    const writer = createSmbConfWriter({ native, file, runner: countingRunner() });
    const good = renderSmbConf(base);
    await writer.write(good);
    execFileSync('chattr', ['+i', d]);
    try {
      const err = await writer.write(renderSmbConf(withGroups)).catch((e: unknown) => e);
      expect((err as AppError).details).toEqual({ reason: 'write_failed' });
      expect(await fs.readFile(file, 'utf8')).toBe(good);
    } finally {
      execFileSync('chattr', ['-i', d]);
    }
    expect(await writer.write(renderSmbConf(withGroups))).toBe('written');
    expect(await leftovers(d)).toEqual([]);
  });

  it('writes without validation when testparm is not installed', async () => {
    const { file } = await fresh('no-testparm');
    const writer = createSmbConfWriter({
      native,
      file,
      runner: createCommandRunner({ path: '/nonexistent' }),
    });
    expect(await writer.write(renderSmbConf(base))).toBe('written');
  });
});
