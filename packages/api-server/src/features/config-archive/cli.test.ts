import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { readArchive } from '@appliance/archive-preview';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/main.ts';
import { startSandbox, type Sandbox } from '../../testing/sandbox.ts';
import { cliCommand } from './cli.ts';

function io() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  return {
    io: { stdout, stderr, stdin: new PassThrough(), env: {} },
    stdout: () => Buffer.concat(out),
    stderr: () => Buffer.concat(err).toString(),
  };
}

describe('appliance config export', () => {
  let s: Sandbox;
  let dir: string;
  beforeAll(async () => {
    s = await startSandbox();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-export-'));
  });
  afterAll(async () => {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes a verifiable archive atomically with mode 0600', async () => {
    const out = path.join(dir, 'backup.tar.zst');
    const t = io();
    expect(await cliCommand.run(['--output', out], t.io, s.socket)).toBe(0);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(['backup.tar.zst']);
    const tmp = fs.mkdtempSync(path.join(dir, 'verify-'));
    const contents = await readArchive(fs.createReadStream(out), { tempDir: tmp });
    expect(contents.files.has('state.db')).toBe(true);
    fs.rmSync(tmp, { recursive: true });
  });

  it('refuses to replace an existing file without --force, and replaces it with --force', async () => {
    const out = path.join(dir, 'existing.tar.zst');
    fs.writeFileSync(out, 'old');
    await expect(cliCommand.run(['--output', out], io().io, s.socket)).rejects.toBeInstanceOf(UsageError);
    expect(fs.readFileSync(out, 'utf8')).toBe('old');
    expect(await cliCommand.run(['--output', out, '--force'], io().io, s.socket)).toBe(0);
    expect(fs.readFileSync(out).subarray(0, 4)).toEqual(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
  });

  it('writes the same bytes to standard output with "-"', async () => {
    const t = io();
    expect(await cliCommand.run(['--output', '-'], t.io, s.socket)).toBe(0);
    expect(t.stdout().subarray(0, 4)).toEqual(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
  });

  it('needs --output, and reports an unreachable socket', async () => {
    await expect(cliCommand.run([], io().io, s.socket)).rejects.toBeInstanceOf(UsageError);
    await expect(cliCommand.run(['--output', '-'], io().io, path.join(dir, 'nope.sock'))).rejects.toThrow(
      /Cannot reach/,
    );
  });
});
