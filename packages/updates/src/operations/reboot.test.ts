import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandRunner } from '@appliance/common';
import { afterAll, describe, expect, it } from 'vitest';
import { rebootDueAt, rebootNow } from './reboot.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reboot-guard-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A runner that records runs and resolves systemctl to `found` (never runs anything). */
function recording(found: string | null) {
  const runs: string[][] = [];
  const runner: CommandRunner = {
    resolve: async () => found,
    run: async (command, args) => {
      runs.push([command, ...args]);
      return { command, args, exitCode: 0, stdout: '', stderr: '', timedOut: false };
    },
  };
  return { runner, runs };
}

describe('the reboot in a sandbox', () => {
  it('never runs the system’s systemctl, nor a link to it; a shim runs', async () => {
    const system = recording('/usr/bin/systemctl');
    await expect(rebootNow(system.runner, { sandbox: true })).rejects.toMatchObject({
      status: 501,
      code: 'not_configured',
    });
    expect(system.runs).toEqual([]);

    const real = ['/usr/bin/systemctl', '/bin/systemctl'].find((p) => fs.existsSync(p));
    expect(real, 'systemctl is installed (package systemd)').toBeDefined();
    fs.symlinkSync(real!, path.join(dir, 'systemctl'));
    const linked = recording(path.join(dir, 'systemctl'));
    await expect(rebootNow(linked.runner, { sandbox: true })).rejects.toMatchObject({
      code: 'not_configured',
    });
    expect(linked.runs).toEqual([]);

    const missing = recording(null);
    await expect(rebootNow(missing.runner, { sandbox: true })).rejects.toMatchObject({
      code: 'not_configured',
    });

    fs.mkdirSync(path.join(dir, 'shim'));
    fs.writeFileSync(path.join(dir, 'shim/systemctl'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const shim = recording(path.join(dir, 'shim/systemctl'));
    await rebootNow(shim.runner, { sandbox: true });
    expect(shim.runs).toEqual([['systemctl', 'reboot']]);

    const host = recording('/usr/bin/systemctl');
    await rebootNow(host.runner, { sandbox: false });
    expect(host.runs).toEqual([['systemctl', 'reboot']]);
  });

  it('a reboot time: now when absent or past, refused beyond 30 days', () => {
    const now = new Date('2026-03-01T10:00:00Z');
    expect(rebootDueAt(undefined, now)).toEqual({ at: now });
    expect(rebootDueAt('2026-02-01T00:00:00Z', now)).toEqual({ at: now });
    expect(rebootDueAt('2026-03-02T03:00:00Z', now)).toEqual({ at: new Date('2026-03-02T03:00:00Z') });
    expect(rebootDueAt('2026-04-01T10:00:01Z', now)).toEqual({ error: 'must be within 30 days from now' });
  });
});
