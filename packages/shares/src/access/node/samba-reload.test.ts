import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandRunner } from '@appliance/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessSnapshot } from '../core/effective-access.ts';
import { renderSmbConf } from '../core/render-smb-conf.ts';
import { createSambaReloader, smbdPid } from './samba-reload.ts';

// The commands the reloader sends, recorded by a runner that answers like smbcontrol (the real
// smbcontrol against a real smbd runs in the server's SMB system test, features/shares).
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smbreload-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const on = { enabled: true, browseable: true };
const conf = (media: string[], photos: string[]): string =>
  renderSmbConf({
    shares: [
      { name: 'media', smb: on },
      { name: 'photos', smb: on },
    ],
    users: ['alice', 'bob'].map((u) => ({ id: u, username: u })),
    groups: [],
    userGrants: [
      ...media.map((u) => ({ shareName: 'media', userId: u, access: 'read-only' as const })),
      ...photos.map((u) => ({ shareName: 'photos', userId: u, access: 'read-only' as const })),
    ],
    groupGrants: [],
  } satisfies AccessSnapshot);

function recording(): CommandRunner & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (command) => `/usr/bin/${command}`,
    async run(command, args) {
      calls.push([command, ...args].join(' '));
      return { command, args, exitCode: 0, stdout: '', stderr: '', timedOut: false };
    },
  };
}

describe('createSambaReloader', () => {
  it('reloads, then closes the connections the new file denies, through the sandbox smb.conf', async () => {
    const file = path.join(dir, 'a.conf');
    const pidFile = path.join(dir, 'a.pid');
    fs.writeFileSync(pidFile, `${process.pid}\n`); // a live process stands for smbd
    const runner = recording();
    const reloader = createSambaReloader({ runner, pidFile, file, smbConf: file, intervalMs: 50 });
    fs.writeFileSync(file, conf(['alice', 'bob'], ['alice']));
    reloader.loaded(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, conf(['bob'], []));
    reloader.request();
    await reloader.idle();
    expect(runner.calls).toEqual([
      `smbcontrol -s ${file} smbd reload-config`,
      `smbcontrol -s ${file} smbd close-share photos`,
      `smbcontrol -s ${file} smbd close-denied-share media`,
    ]);
    // the next reload compares with what smbd loaded last
    runner.calls.length = 0;
    fs.writeFileSync(file, conf(['alice', 'bob'], []));
    reloader.request();
    await reloader.idle();
    expect(runner.calls).toEqual([`smbcontrol -s ${file} smbd reload-config`]);
    reloader.stop();
  });

  it('debounces: requests during one interval share the next reload', async () => {
    const file = path.join(dir, 'b.conf');
    const pidFile = path.join(dir, 'b.pid');
    fs.writeFileSync(pidFile, `${process.pid}\n`);
    fs.writeFileSync(file, conf(['alice'], []));
    const runner = recording();
    const reloader = createSambaReloader({ runner, pidFile, intervalMs: 300 });
    reloader.request();
    await reloader.idle();
    for (let i = 0; i < 10; i++) reloader.request();
    await reloader.idle();
    // the real host's smbd: no -s, no file to compare, so only reloads
    expect(runner.calls).toEqual(['smbcontrol smbd reload-config', 'smbcontrol smbd reload-config']);
    reloader.stop();
  });

  it('sends nothing when smbd does not run, and takes the file as what a later smbd loads', async () => {
    const file = path.join(dir, 'c.conf');
    const pidFile = path.join(dir, 'c.pid');
    fs.writeFileSync(file, conf(['alice', 'bob'], []));
    const runner = recording();
    const reloader = createSambaReloader({ runner, pidFile, file, intervalMs: 10 });
    reloader.request();
    await reloader.idle();
    expect(runner.calls).toEqual([]);
    fs.writeFileSync(pidFile, `${process.pid}\n`);
    fs.writeFileSync(file, conf(['alice'], []));
    reloader.request();
    await reloader.idle();
    expect(runner.calls).toEqual([
      'smbcontrol smbd reload-config',
      'smbcontrol smbd close-denied-share media',
    ]);
    reloader.stop();
  });

  it('settle: a grant is reloaded at once and confirmed by a ping; a revocation is left to the debounce', async () => {
    const file = path.join(dir, 'e.conf');
    const pidFile = path.join(dir, 'e.pid');
    fs.writeFileSync(pidFile, `${process.pid}\n`);
    const runner = recording();
    // a long debounce: only settle() can reload within this test
    const reloader = createSambaReloader({ runner, pidFile, file, smbConf: file, intervalMs: 60_000 });
    fs.writeFileSync(file, conf(['alice'], []));
    reloader.loaded(fs.readFileSync(file, 'utf8'));
    // photos opened to bob: reloaded and confirmed before settle resolves
    fs.writeFileSync(file, conf(['alice'], ['bob']));
    expect(await reloader.settle()).toBe(true);
    expect(runner.calls).toEqual([
      `smbcontrol -s ${file} smbd reload-config`,
      `smbcontrol -s ${file} -t 3 smbd ping`,
    ]);
    // now loaded: nothing more to settle
    runner.calls.length = 0;
    expect(await reloader.settle()).toBe(true);
    expect(runner.calls).toEqual([]);
    // a revocation only: settle sends nothing (new connections are refused at once without it)
    fs.writeFileSync(file, conf([], ['bob']));
    expect(await reloader.settle()).toBe(true);
    expect(runner.calls).toEqual([]);
    // grants of one turn share one reload
    fs.writeFileSync(file, conf(['alice', 'bob'], ['bob']));
    const all = await Promise.all([reloader.settle(), reloader.settle(), reloader.settle()]);
    expect(all).toEqual([true, true, true]);
    expect(runner.calls.filter((c) => c.endsWith('reload-config'))).toHaveLength(1);
    reloader.stop();
  });

  it('settle: an smbd that does not answer is waited for at most the timeout', async () => {
    const file = path.join(dir, 'f.conf');
    const pidFile = path.join(dir, 'f.pid');
    fs.writeFileSync(pidFile, `${process.pid}\n`);
    const logged: string[] = [];
    const hanging: CommandRunner = {
      resolve: async (command) => `/usr/bin/${command}`,
      run: (command, args) =>
        args.includes('ping')
          ? new Promise(() => undefined)
          : Promise.resolve({ command, args, exitCode: 0, stdout: '', stderr: '', timedOut: false }),
    };
    const reloader = createSambaReloader({
      runner: hanging,
      pidFile,
      file,
      intervalMs: 60_000,
      log: (m) => logged.push(m),
    });
    fs.writeFileSync(file, conf(['alice'], []));
    const started = Date.now();
    expect(await reloader.settle(200)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(logged.join('\n')).toMatch(/did not confirm/);
    reloader.stop();
  });

  it('smbdPid: a live pid, or null for a missing file, garbage or a dead process', async () => {
    const pidFile = path.join(dir, 'd.pid');
    expect(await smbdPid(pidFile)).toBeNull();
    fs.writeFileSync(pidFile, 'not a pid');
    expect(await smbdPid(pidFile)).toBeNull();
    fs.writeFileSync(pidFile, '2147483646\n');
    expect(await smbdPid(pidFile)).toBeNull();
    fs.writeFileSync(pidFile, `${process.pid}\n`);
    expect(await smbdPid(pidFile)).toBe(process.pid);
  });
});
