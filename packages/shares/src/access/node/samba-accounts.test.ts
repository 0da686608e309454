import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError, createCommandRunner } from '@appliance/common';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSambaAccounts, passwdHasUser, sessionPids } from './samba-accounts.ts';

// Real useradd/userdel on this machine and a real tdbsam database in a temporary Samba state dir.
const NAME = `ApplTest_${process.pid}`;
const unixName = NAME.toLowerCase();
let dir: string;
let conf: string;

const pdbUsers = (): string => {
  // smbpasswd has no list mode; the tdbsam file holds the entries' names in clear.
  return execFileSync('strings', [path.join(dir, 'private', 'passdb.tdb')]).toString();
};

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['useradd', 'userdel', 'smbpasswd', 'strings'] });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sambaacct-'));
  conf = path.join(dir, 'smb.conf');
  const sub = (n: string) => path.join(dir, n);
  for (const n of ['private', 'lock', 'state', 'cache', 'pid']) await fs.mkdir(sub(n));
  await fs.writeFile(
    conf,
    [
      '[global]',
      '   server role = standalone server',
      '   passdb backend = tdbsam',
      `   private dir = ${sub('private')}`,
      `   lock directory = ${sub('lock')}`,
      `   state directory = ${sub('state')}`,
      `   cache directory = ${sub('cache')}`,
      `   pid directory = ${sub('pid')}`,
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  try {
    execFileSync('userdel', [unixName], { stdio: 'ignore' });
  } catch {
    // not present: the tests removed it
  }
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('createSambaAccounts (real useradd, smbpasswd, userdel)', () => {
  it('creates the Unix account and the Samba entry, then removes both', async () => {
    const accounts = createSambaAccounts({
      runner: createCommandRunner(),
      passwdFile: '/etc/passwd',
      smbConf: conf,
    });
    await accounts.setPassword(NAME, 'correct horse');
    expect(await passwdHasUser('/etc/passwd', unixName)).toBe(true);
    const entry = execFileSync('getent', ['passwd', unixName]).toString();
    expect(entry).toMatch(/:\/usr\/sbin\/nologin\n$/);
    expect(pdbUsers()).toContain(unixName);
    // Setting it again (a password change) keeps the one account.
    await accounts.setPassword(NAME, 'another secret');
    await accounts.remove(NAME);
    expect(await passwdHasUser('/etc/passwd', unixName)).toBe(false);
    // Removing an absent account is fine.
    await accounts.remove(NAME);
  });

  it('answers 502 samba_password_failed and rolls back the Unix account when smbpasswd fails', async () => {
    const accounts = createSambaAccounts({
      runner: createCommandRunner(),
      passwdFile: '/etc/passwd',
      smbConf: path.join(dir, 'missing.conf'),
    });
    const err = await accounts.setPassword(NAME, 'correct horse').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect([(err as AppError).status, (err as AppError).code]).toEqual([502, 'samba_password_failed']);
    expect(await passwdHasUser('/etc/passwd', unixName)).toBe(false);
  });

  it('refuses a password that cannot go through stdin, without touching accounts', async () => {
    const accounts = createSambaAccounts({
      runner: createCommandRunner(),
      passwdFile: '/etc/passwd',
      smbConf: conf,
    });
    await expect(accounts.setPassword(NAME, 'two\nlines')).rejects.toMatchObject({
      code: 'samba_password_failed',
    });
    expect(await passwdHasUser('/etc/passwd', unixName)).toBe(false);
  });
});

describe('sessionPids (smbstatus --json -b)', () => {
  // the shape of Samba 4.17's output, as smbstatus printed it for two connections of bob and one of alice
  const session = (id: string, pid: string, username: string) => ({
    session_id: id,
    server_id: { pid, task_id: '0', vnn: '4294967295', unique_id: '1' },
    uid: 1002,
    gid: 100,
    username,
    groupname: 'users',
    remote_machine: '127.0.0.1',
  });
  const json = JSON.stringify({
    timestamp: '2026-11-25T19:01:15.814692+0000',
    version: '4.17.12-Debian',
    sessions: {
      '1': session('1', '1036', 'bob'),
      '2': session('2', '1040', 'bob'),
      '3': session('3', '1041', 'alice'),
      '4': session('4', '1036', 'bob'),
    },
  });

  it("lists the processes serving the user's sessions, once each", () => {
    expect(sessionPids(json, 'bob').sort()).toEqual([1036, 1040]);
    expect(sessionPids(json, 'alice')).toEqual([1041]);
    expect(sessionPids(json, 'carol')).toEqual([]);
  });

  it('finds nothing in empty or malformed output', () => {
    for (const text of [
      '',
      'No locked files',
      '{}',
      '{"sessions": null}',
      '{"sessions": {"1": {"username": "bob"}}}',
    ])
      expect(sessionPids(text, 'bob')).toEqual([]);
    expect(sessionPids(JSON.stringify({ sessions: { 1: session('1', '1', 'bob') } }), 'bob')).toEqual([]);
  });
});
