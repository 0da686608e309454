/**
 * The addon against real files (tmpdir): every call is relative to an open directory handle, never
 * follows a symbolic link and refuses names that could leave the directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FsAt, fsAtAddonPath, loadFsAt } from './index.ts';

let root: string;
let at: FsAt;
const fds: number[] = [];
/** Handles opened by the addon, closed by it. */
const handles: number[] = [];
const open = (p: string) => {
  const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  fds.push(fd);
  return fd;
};
const b = (s: string) => Buffer.from(s);

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-at-'));
});
afterEach(() => {
  for (const fd of fds.splice(0)) fs.closeSync(fd);
  for (const fd of handles.splice(0)) at.close(fd);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('@appliance/fs-at', () => {
  it('is built and loads (pnpm build)', () => {
    const file = fsAtAddonPath();
    expect(file).not.toBeNull();
    at = loadFsAt(file!);
  });

  describe('calls', () => {
    beforeEach(() => {
      at = loadFsAt(fsAtAddonPath()!);
    });

    it('drain removes non-directories (links as links), lists directories, sums blocks of single-link files', () => {
      const outside = path.join(root, 'outside');
      const dir = path.join(root, 'dir');
      fs.mkdirSync(outside);
      fs.writeFileSync(path.join(outside, 'precious'), Buffer.alloc(8192, 1));
      fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'data'), Buffer.alloc(8192, 1));
      fs.writeFileSync(path.join(dir, 'shared'), Buffer.alloc(4096, 1));
      fs.linkSync(path.join(dir, 'shared'), path.join(outside, 'shared-link'));
      fs.symlinkSync(outside, path.join(dir, 'to-outside'));
      fs.symlinkSync(path.join(outside, 'precious'), path.join(dir, 'to-file'));
      const blocks = fs.statSync(path.join(dir, 'data')).blocks;
      const fd = open(dir);
      const dry = at.drain(fd, true, true);
      expect(dry[0]).toBe(false);
      expect(dry[1]).toBe(4);
      expect(dry[3]).toEqual(['sub']);
      expect(dry[5]).toEqual([fs.statSync(path.join(dir, 'shared')).ino, 2, expect.any(Number)]);
      expect(at.drain(fd, true, false)[0]).toBe(true);
      expect(fs.readdirSync(dir).sort()).toEqual(['data', 'shared', 'sub', 'to-file', 'to-outside']);

      const real = at.drain(fd, false, true);
      expect(real.slice(0, 5)).toEqual([false, 4, blocks * 512, ['sub'], []]);
      expect(at.drain(fd, false, false)[0]).toBe(true);
      expect(fs.readdirSync(dir)).toEqual(['sub']);
      expect(fs.readFileSync(path.join(outside, 'precious')).length).toBe(8192);
      expect(fs.statSync(path.join(outside, 'shared-link')).nlink).toBe(1);
    });

    it('drain streams a large directory in bounded batches', () => {
      const dir = path.join(root, 'big');
      fs.mkdirSync(dir);
      for (let i = 0; i < 5000; i++) fs.writeFileSync(path.join(dir, `file-${i}`), '');
      const fd = open(dir);
      let files = 0;
      let calls = 0;
      for (let rewind = true; ; rewind = false) {
        const r = at.drain(fd, false, rewind);
        files += r[1];
        calls += 1;
        if (r[0]) break;
      }
      expect(files).toBe(5000);
      expect(calls).toBeGreaterThan(2);
      expect(fs.readdirSync(dir)).toEqual([]);
    });

    it('openDirAt never follows a symbolic link and refuses names that leave the directory', () => {
      fs.mkdirSync(path.join(root, 'real'));
      fs.symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
      fs.writeFileSync(path.join(root, 'file'), '');
      const fd = open(root);
      const sub = at.openDirAt(fd, b('real'));
      handles.push(sub);
      expect(fs.fstatSync(sub).ino).toBe(fs.statSync(path.join(root, 'real')).ino);
      expect(() => at.openDirAt(fd, b('link'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
      expect(() => at.openDirAt(fd, b('file'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
      expect(() => at.openDirAt(fd, b('nope'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
      for (const bad of ['..', '.', '', 'real/..', 'a\0b']) {
        expect(() => at.openDirAt(fd, b(bad))).toThrow(expect.objectContaining({ code: 'EINVAL' }));
        expect(() => at.unlinkAt(fd, b(bad), true)).toThrow(expect.objectContaining({ code: 'EINVAL' }));
      }
      expect(() => at.openDirAt(fd, 'real' as unknown as Buffer)).toThrow(TypeError);
      const parent = at.openParent(sub);
      handles.push(parent);
      expect(fs.fstatSync(parent).ino).toBe(fs.statSync(root).ino);
      const link = at.lstatAt(fd, b('link'));
      expect((link![0] & fs.constants.S_IFMT) === fs.constants.S_IFLNK).toBe(true);
      expect(at.lstatAt(fd, b('nope'))).toBeNull();
    });

    it('unlinkAt removes an entry or an empty directory and reports errno names', () => {
      fs.mkdirSync(path.join(root, 'd', 'x'), { recursive: true });
      fs.writeFileSync(path.join(root, 'f'), '');
      const fd = open(root);
      expect(() => at.unlinkAt(fd, b('d'), true)).toThrow(expect.objectContaining({ code: 'ENOTEMPTY' }));
      expect(() => at.unlinkAt(fd, b('d'), false)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
      at.unlinkAt(fd, b('f'), false);
      fs.rmdirSync(path.join(root, 'd', 'x'));
      at.unlinkAt(fd, b('d'), true);
      expect(fs.readdirSync(root)).toEqual([]);
    });
  });

  describe('durable writes (one thread-pool job)', () => {
    beforeEach(() => {
      at = loadFsAt(fsAtAddonPath()!);
    });

    it('writes a new file with mode 0644 whatever the umask, then renames it over the target', async () => {
      const old = process.umask(0o077);
      try {
        const candidate = path.join(root, '.smb.conf.candidate');
        const target = path.join(root, 'smb.conf');
        fs.writeFileSync(target, 'old');
        await at.writeFileDurable(candidate, Buffer.from('[global]\n'), null);
        expect(fs.statSync(candidate).mode & 0o777).toBe(0o644);
        expect(fs.readFileSync(target, 'utf8')).toBe('old');
        await at.renameDurable(candidate, target);
        expect(fs.readFileSync(target, 'utf8')).toBe('[global]\n');
        expect(fs.existsSync(candidate)).toBe(false);
        await at.writeFileDurable(candidate, Buffer.alloc(300_000, 'x'), target);
        expect(fs.statSync(target).size).toBe(300_000);
        expect(fs.readdirSync(root)).toEqual(['smb.conf']);
      } finally {
        process.umask(old);
      }
    });

    it('never replaces an existing file nor follows a symbolic link, and rejects with the errno name', async () => {
      const outside = path.join(root, 'outside');
      fs.writeFileSync(outside, 'keep');
      fs.symlinkSync(outside, path.join(root, 'link'));
      await expect(
        at.writeFileDurable(path.join(root, 'link'), Buffer.from('x'), null),
      ).rejects.toMatchObject({
        code: 'EEXIST',
        syscall: 'open',
      });
      await expect(at.writeFileDurable(outside, Buffer.from('x'), null)).rejects.toMatchObject({
        code: 'EEXIST',
      });
      expect(fs.readFileSync(outside, 'utf8')).toBe('keep');
      await expect(
        at.writeFileDurable(path.join(root, 'no', 'dir'), Buffer.from('x'), null),
      ).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(at.renameDurable(path.join(root, 'missing'), path.join(root, 't'))).rejects.toMatchObject({
        code: 'ENOENT',
        syscall: 'rename',
      });
      expect(() => at.writeFileDurable('a\0b', Buffer.from('x'), null)).toThrow(TypeError);
      expect(() => at.writeFileDurable(path.join(root, 'f'), 'text' as unknown as Buffer, null)).toThrow(
        TypeError,
      );
    });
  });
});
