import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/main.ts';
import { startSandbox, type Sandbox } from '../../testing/sandbox.ts';
import { cliCommand as exportCommand } from './cli.ts';
import { importCliCommand } from './import-cli.ts';

function io(stdinText?: string, tty = false) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) stdin.isTTY = true;
  if (stdinText !== undefined) stdin.end(stdinText);
  return {
    io: { stdout, stderr, stdin, env: {} },
    stdout: () => Buffer.concat(out).toString(),
    stderr: () => Buffer.concat(err).toString(),
  };
}

describe('appliance config import', () => {
  let a: Sandbox;
  let b: Sandbox;
  let dir: string;
  let archive: string;
  beforeAll(async () => {
    a = await startSandbox();
    b = await startSandbox();
    expect((await a.call('PUT', '/settings', { hostname: 'nas-a', timezone: 'UTC' })).status).toBe(200);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-import-'));
    archive = path.join(dir, 'a.tar.zst');
    expect(await exportCommand.run(['--output', archive], io().io, a.socket)).toBe(0);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('without a terminal and without --confirm: usage error (exit 2), nothing sent', async () => {
    await expect(importCliCommand.run([archive], io().io, b.socket)).rejects.toBeInstanceOf(UsageError);
    await expect(importCliCommand.run([], io().io, b.socket)).rejects.toBeInstanceOf(UsageError);
  });

  it('a wrong phrase: exit 1 with the API error, nothing changed', async () => {
    const before = b.dumpDatabase();
    const t = io();
    expect(await importCliCommand.run([archive, '--confirm', 'RESTORE other'], t.io, b.socket)).toBe(1);
    expect(t.stderr()).toContain('confirmation_required');
    expect(b.dumpDatabase()).toBe(before);
  });

  it('asks for the phrase on a terminal, shows each step, prints the result', async () => {
    const t = io('RESTORE nas-a\n', true);
    expect(await importCliCommand.run([archive], t.io, b.socket)).toBe(0);
    expect(t.stderr()).toContain('Type "RESTORE nas-a" to continue');
    expect(t.stderr()).toMatch(/\[1\/\d\] pre import archive/);
    expect(t.stderr()).toMatch(/\[\d\/\d\] commit/);
    const result = JSON.parse(t.stdout());
    expect(result.preImportArchive).toMatch(/^\/var\/lib\/appliance\/backups\/pre-import-/);
    expect((await b.call('GET', '/settings', undefined, { token: a.token })).body.hostname).toBe('nas-a');
  });

  it('scripts: --confirm and --passphrase-stdin; before setup too (no progress then: /events is gated)', async () => {
    const t = io('');
    expect(
      await importCliCommand.run(
        [archive, '--confirm', 'RESTORE nas-a', '--passphrase-stdin'],
        t.io,
        b.socket,
      ),
    ).toBe(0);
    const c = await startSandbox({ admin: false });
    try {
      const u = io();
      expect(await importCliCommand.run([archive, '--confirm', 'RESTORE nas-a'], u.io, c.socket)).toBe(0);
      expect((await c.call('GET', '/setup/status', undefined, { token: null })).body.setupRequired).toBe(
        false,
      );
    } finally {
      await c.close();
    }
  });
});
