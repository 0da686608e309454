import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOST_PATH, createCommandRunner, missingTools, requireTools } from './command.ts';
import { AppError } from './errors.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('createCommandRunner', () => {
  const runner = createCommandRunner();
  it('runs an argument list without a shell and returns the exit code', async () => {
    const r = await runner.run('sh', ['-c', 'echo "$0"; exit 3', '$(touch /nonexistent)']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('$(touch /nonexistent)\n');
  });
  it("passes only the contract's fixed environment: LC_ALL=C and the system PATH, whatever the service inherited", async () => {
    process.env['APPLIANCE_TEST_SECRET'] = 'leak';
    const inherited = process.env['PATH'];
    process.env['PATH'] = '/opt/nothing';
    try {
      const r = await runner.run('env', []);
      expect(r.stdout).not.toContain('APPLIANCE_TEST_SECRET');
      expect(r.stdout.split('\n').sort().filter(Boolean)).toEqual(['LC_ALL=C', `PATH=${HOST_PATH}`]);
    } finally {
      process.env['PATH'] = inherited;
    }
  });
  it('writes input to stdin', async () => {
    const r = await runner.run('cat', [], { input: 'pw\n' });
    expect(r.stdout).toBe('pw\n');
  });
  it('kills a command and its children at the timeout', async () => {
    const t = Date.now();
    const r = await runner.run('sh', ['-c', 'sleep 30 & sleep 30; echo never'], { timeoutMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.stdout).toBe('');
    expect(Date.now() - t).toBeLessThan(5_000);
  });
  it('names the Debian package of a missing tool', async () => {
    const fake = createCommandRunner({ path: '/nonexistent' });
    const err = await fake.run('mkfs.xfs', []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(501);
    expect((err as AppError).message).toContain('xfsprogs');
  });
});

describe('resolve: "is the tool installed" is the lookup run uses', () => {
  it('finds a tool in /usr/sbin although the inherited PATH lacks it', async () => {
    const inherited = process.env['PATH'];
    process.env['PATH'] = '/usr/bin:/bin';
    try {
      const runner = createCommandRunner();
      expect(await runner.resolve('wipefs')).toMatch(/^\/(usr\/)?sbin\/wipefs$/);
      const r = await runner.run('wipefs', ['--version']);
      expect(r.exitCode).toBe(0);
    } finally {
      process.env['PATH'] = inherited;
    }
  });
  it('answers null for a tool present only outside the runner PATH, and run refuses it the same way', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'runner-elsewhere-'));
    dirs.push(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'appliance-only-here'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
    const inherited = process.env['PATH'];
    process.env['PATH'] = `${elsewhere}:${inherited}`;
    try {
      const runner = createCommandRunner();
      expect(await runner.resolve('appliance-only-here')).toBeNull();
      expect(await missingTools(runner, ['sh', 'appliance-only-here'])).toEqual(['appliance-only-here']);
      await expect(requireTools(runner, ['appliance-only-here'])).rejects.toMatchObject({
        status: 501,
        code: 'not_configured',
      });
      await expect(runner.run('appliance-only-here', [])).rejects.toMatchObject({ status: 501 });
    } finally {
      process.env['PATH'] = inherited;
    }
  });
  it('does not take a directory or a file without the execute bit for a tool', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runner-path-'));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'adir'));
    fs.writeFileSync(path.join(dir, 'noexec'), '#!/bin/sh\n', { mode: 0o644 });
    const runner = createCommandRunner({ path: dir });
    expect(await runner.resolve('adir')).toBeNull();
    // root may "access X_OK" a 0644 file; the lookup still refuses it, as exec would
    const noexec = await runner.resolve('noexec');
    if (noexec !== null) expect(fs.statSync(noexec).mode & 0o111).not.toBe(0);
  });
});

describe('streaming and cancelling (long runs: snapraid, rsync, restic)', () => {
  const runner = createCommandRunner();
  it('delivers lines as they come, split at \\n and \\r, and keeps only the tail of the output', async () => {
    const lines: string[] = [];
    const r = await runner.run(
      'sh',
      [
        '-c',
        'printf "10%%\\r20%%\\rdone\\n"; echo err >&2; i=0; while [ $i -lt 3000 ]; do echo line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; i=$((i+1)); done',
      ],
      { onLine: (line, stream) => lines.push(`${stream}:${line}`) },
    );
    expect(r.exitCode).toBe(0);
    expect(lines.slice(0, 3)).toEqual(['stdout:10%', 'stdout:20%', 'stdout:done']);
    expect(lines).toContain('stderr:err');
    expect(lines.at(-1)).toBe('stdout:line-2999-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
    expect(r.stdout.length).toBeLessThanOrEqual(64 * 1024);
    expect(r.stdout.endsWith('line-2999-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n')).toBe(true);
  });
  it('cancels with the chosen signal (a clean stop), without a timeout', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const run = runner.run(
      'sh',
      ['-c', 'trap "echo stopped-cleanly; exit 0" INT; echo started; while :; do sleep 0.05; done'],
      {
        timeoutMs: null,
        signal: controller.signal,
        killSignal: 'SIGINT',
        onLine: (line) => {
          seen.push(line);
          if (line === 'started') controller.abort();
        },
      },
    );
    const r = await run;
    expect(r.cancelled).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(seen).toEqual(['started', 'stopped-cleanly']);
  });
  it('kills after the grace period when the tool ignores the signal', async () => {
    const controller = new AbortController();
    const t = Date.now();
    const r = await runner.run('sh', ['-c', 'trap "" TERM; echo up; while :; do sleep 0.05; done'], {
      timeoutMs: null,
      signal: controller.signal,
      killGraceMs: 300,
      onLine: () => controller.abort(),
    });
    expect(r.cancelled).toBe(true);
    expect(Date.now() - t).toBeLessThan(5_000);
  });
});
