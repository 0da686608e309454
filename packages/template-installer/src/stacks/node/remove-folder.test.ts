import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeFolderUnder } from './remove-folder.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rm-under-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('removeFolderUnder (real files)', () => {
  it('removes a folder below the root and the links inside it, never their targets', async () => {
    const root = path.join(dir, 'cache');
    const share = path.join(dir, 'share');
    fs.mkdirSync(path.join(root, 'appdata/web/sub'), { recursive: true });
    fs.mkdirSync(share);
    fs.writeFileSync(path.join(share, 'precious'), 'x');
    fs.writeFileSync(path.join(root, 'appdata/web/sub/f'), 'y');
    fs.symlinkSync(share, path.join(root, 'appdata/web/link-to-share'));
    expect(await removeFolderUnder(root, path.join(root, 'appdata/web'))).toBe('removed');
    expect(fs.existsSync(path.join(root, 'appdata/web'))).toBe(false);
    expect(fs.readdirSync(path.join(root, 'appdata'))).toEqual([]);
    expect(fs.readFileSync(path.join(share, 'precious'), 'utf8')).toBe('x');
  });
  it('refuses a folder reached through a symbolic link, or outside the root', async () => {
    const root = path.join(dir, 'cache');
    const share = path.join(dir, 'share');
    fs.mkdirSync(path.join(root, 'appdata'), { recursive: true });
    fs.mkdirSync(path.join(share, 'inner'), { recursive: true });
    fs.symlinkSync(share, path.join(root, 'appdata/web'));
    expect(await removeFolderUnder(root, path.join(root, 'appdata/web'))).toBe('symlink');
    expect(await removeFolderUnder(root, path.join(root, 'appdata/web/inner'))).toBe('symlink');
    expect(fs.existsSync(path.join(share, 'inner'))).toBe(true);
    expect(await removeFolderUnder(root, share)).toBe('outside');
    expect(await removeFolderUnder(root, root)).toBe('outside');
    expect(await removeFolderUnder(root, path.join(root, 'appdata/none'))).toBe('missing');
  });
});
