/**
 * `appliance system reboot` and `appliance updates` against a real server whose host root has a
 * run/reboot-required of the test's own. The sandbox has no apt configuration of its own, so it
 * refuses to check this machine's packages (501 not_configured); the scheduler does not run, and a
 * sandbox never reboots the machine anyway (features/updates of the server).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance } from './support.ts';

let s: Sandbox;
let host: string;
const cli = (...args: string[]) => appliance([...args, '--socket', s.socket]);

beforeAll(async () => {
  host = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-updates-host-'));
  for (const d of ['etc', 'run', 'boot']) fs.mkdirSync(path.join(host, d));
  fs.writeFileSync(path.join(host, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  fs.writeFileSync(path.join(host, 'etc/group'), 'root:x:0:\n');
  fs.writeFileSync(path.join(host, 'run/reboot-required'), '');
  fs.writeFileSync(path.join(host, 'run/reboot-required.pkgs'), 'linux-image-6.1.0-18-amd64\n');
  s = await startSandbox({ hostRoot: host, config: { logLevel: 'silent' }, start: { scheduler: false } });
  await s.server.ctx.watchers.runOnce('reboot');
});
afterAll(async () => {
  await s?.close();
  fs.rmSync(host, { recursive: true, force: true });
});

describe('appliance system reboot', () => {
  it('shows the reboot required with its packages, schedules one for a time and cancels it', async () => {
    const state = await cli('system', 'reboot');
    expect(state.code, state.stderr).toBe(0);
    expect(state.stdout).toMatch(/reboot required:\s+yes: linux-image-6\.1\.0-18-amd64\n/);
    expect(state.stdout).toMatch(/scheduled:\s+no\n/);

    const at = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await cli('system', 'reboot', '--at', at);
    expect(scheduled.code, scheduled.stderr).toBe(0);
    expect(scheduled.stdout).toMatch(
      new RegExp(`scheduled:\\s+${at.replace(/\./g, '\\.')} \\(in .+, by local\\)\n`),
    );
    expect((await s.call('GET', '/system/reboot')).body.scheduledAt).toBe(at);

    const json = await cli('system', 'reboot', '--cancel', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ required: true, scheduledAt: null });

    const both = await cli('system', 'reboot', '--now', '--cancel');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give one of --at <time>, --now or --cancel');
    const bad = await cli('system', 'reboot', '--at', 'tomorrow');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('RFC 3339');
  });
});

describe('appliance updates', () => {
  it('shows that no check ran; a check in a sandbox without its own apt configuration is refused', async () => {
    const show = await cli('updates');
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/last check:\s+never\n/);
    expect(show.stdout).toMatch(/pending:\s+0 packages\n/);
    const check = await cli('updates', 'check');
    expect(check.code).not.toBe(0);
    expect(check.stderr).toContain('not_configured');
  });
});
