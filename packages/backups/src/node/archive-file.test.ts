import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveFileWriter } from './archive-file.ts';
import { createBackupStacks } from './stack.ts';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'backups-archive-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('archiveFileWriter', () => {
  it('writes the stream to a new 0600 file and answers its size', async () => {
    const file = path.join(dir, 'a.tar.zst');
    const writer = archiveFileWriter(async () => ({
      stream: Readable.from([Buffer.from('abc'), Buffer.from('de')]),
      done: Promise.resolve(),
    }));
    expect(await writer.write(file)).toEqual({ bytes: 5 });
    expect(await fs.readFile(file, 'utf8')).toBe('abcde');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  });

  it('never writes over an existing file, and fails when the export fails', async () => {
    const file = path.join(dir, 'a.tar.zst');
    await fs.writeFile(file, 'keep');
    const ok = archiveFileWriter(async () => ({
      stream: Readable.from([Buffer.from('x')]),
      done: Promise.resolve(),
    }));
    await expect(ok.write(file)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await fs.readFile(file, 'utf8')).toBe('keep');
    const exportFailed = Promise.reject(new Error('export failed'));
    exportFailed.catch(() => undefined); // the writer awaits it once the bytes are written
    const failed = archiveFileWriter(async () => ({
      stream: Readable.from([Buffer.from('x')]),
      done: exportFailed,
    }));
    await expect(failed.write(path.join(dir, 'b.tar.zst'))).rejects.toThrow('export failed');
  });
});

describe('createBackupStacks', () => {
  it('a stack exists when its docker-compose.yml does; pauseWatch is the caller’s', async () => {
    await fs.mkdir(path.join(dir, 'photos'));
    await fs.writeFile(path.join(dir, 'photos', 'docker-compose.yml'), 'services: {}\n');
    await fs.mkdir(path.join(dir, 'empty'));
    const paused: string[] = [];
    const stacks = createBackupStacks({
      runner: { run: async () => ({ exitCode: 0, stdout: '', stderr: '', timedOut: false }) } as never,
      stacksDir: dir,
      compose: async () => ({ command: 'docker', prefix: ['compose'] }),
      env: {},
      pauseWatch: (stack) => {
        paused.push(stack);
        return () => undefined;
      },
    });
    expect([
      await stacks.exists('photos'),
      await stacks.exists('empty'),
      await stacks.exists('none'),
    ]).toEqual([true, false, false]);
    stacks.pauseWatch('photos');
    expect(paused).toEqual(['photos']);
  });
});
