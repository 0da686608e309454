// The shipped systemd unit (systemd/appliance.service): the real `systemd-analyze verify` accepts
// it (with ExecStart pointed at this checkout's launcher, since verify needs the binary to exist),
// and it holds none of the options that would stop the service from mounting for the host.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const UNIT = path.join(import.meta.dirname, '..', 'systemd', 'appliance.service');
const LAUNCHER = path.join(import.meta.dirname, '..', 'bin', 'appliance-server');
const INSTALLED_LAUNCHER = '/opt/appliance/app/node_modules/@appliance/api-server/bin/appliance-server';
let dir: string;

function verify(text: string) {
  const file = path.join(dir, 'appliance.service');
  fs.writeFileSync(file, text);
  return spawnSync('systemd-analyze', ['verify', '--man=no', file], { encoding: 'utf8', timeout: 60_000 });
}

/** `Key=value` lines of the unit, comments and sections left out. */
function options(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!]);
  }
  return out;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-'));
  const found = spawnSync('systemd-analyze', ['--version']);
  if (found.error)
    throw new Error(
      'systemd-analyze is missing: install the Debian package systemd (bash tools/test.sh does)',
    );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('appliance.service', () => {
  const text = fs.readFileSync(UNIT, 'utf8');

  it('passes systemd-analyze verify with the launcher at its install path', () => {
    expect(options(text).get('ExecStart')).toEqual([INSTALLED_LAUNCHER]);
    const r = verify(text.replaceAll(INSTALLED_LAUNCHER, LAUNCHER));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('is refused by verify when the launcher is not there (the check can fail)', () => {
    const r = verify(text.replaceAll(INSTALLED_LAUNCHER, path.join(dir, 'no-such-launcher')));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('no-such-launcher');
  });

  it('runs the launcher as root with the state, runtime, configuration and cache directories', () => {
    const o = options(text);
    expect(o.get('Type')).toEqual(['exec']);
    expect(o.has('User')).toBe(false);
    expect(o.has('DynamicUser')).toBe(false);
    expect(o.get('RuntimeDirectory')).toEqual(['appliance']);
    expect(o.get('StateDirectory')).toEqual(['appliance']);
    expect(o.get('StateDirectoryMode')).toEqual(['0700']);
    // the launcher keeps Node's compile cache there (bin/appliance-server)
    expect(o.get('CacheDirectory')).toEqual(['appliance']);
    expect(o.get('CacheDirectoryMode')).toEqual(['0700']);
    expect(o.get('KillMode')).toEqual(['control-group']);
    for (const hardening of ['NoNewPrivileges', 'RestrictSUIDSGID', 'LockPersonality', 'RestrictRealtime'])
      expect(o.get(hardening), hardening).toEqual(['yes']);
    expect(o.get('SystemCallArchitectures')).toEqual(['native']);
    expect(o.get('UMask')).toEqual(['0077']);
  });

  it('sets no option that gives it a private mount namespace, a device policy or another network', () => {
    // systemd.exec(5): each of these turns off mount propagation from the service to the host
    // (its disks and /mnt/user would be invisible to Samba, Docker and the operator), restricts
    // /dev, or hides the host's network and users.
    const forbidden = [
      'PrivateMounts',
      'PrivateTmp',
      'PrivateDevices',
      'PrivateNetwork',
      'PrivateUsers',
      'PrivateIPC',
      'ProtectSystem',
      'ProtectHome',
      'ProtectKernelTunables',
      'ProtectKernelModules',
      'ProtectKernelLogs',
      'ProtectControlGroups',
      'ProtectClock',
      'ProtectProc',
      'ProcSubset',
      'ProtectHostname',
      'ReadWritePaths',
      'ReadOnlyPaths',
      'InaccessiblePaths',
      'ExecPaths',
      'NoExecPaths',
      'TemporaryFileSystem',
      'BindPaths',
      'BindReadOnlyPaths',
      'RootDirectory',
      'RootImage',
      'MountAPIVFS',
      'MountFlags',
      'DevicePolicy',
      'DeviceAllow',
      'MemoryDenyWriteExecute',
    ];
    const o = options(text);
    expect(forbidden.filter((k) => o.has(k))).toEqual([]);
  });
});
