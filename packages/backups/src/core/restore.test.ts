import { describe, expect, it } from 'vitest';
import {
  asideName,
  checkFolderTarget,
  checkRestorePaths,
  includePattern,
  restorePhrase,
  restoreRoots,
} from './restore.ts';

describe('restore decisions', () => {
  it('chosen paths: relative, no dot segments; nested ones collapse', () => {
    expect(checkRestorePaths(['photos/2024/', 'photos/2024/a.jpg', 'docs'])).toEqual({
      paths: ['docs', 'photos/2024'],
    });
    for (const bad of ['/etc', '../x', 'a/../b', 'a//b', '', '.', 'a/./b']) {
      const r = checkRestorePaths([bad]);
      expect('error' in r && r.error.code, bad).toBe('bad_request');
    }
  });
  it('include patterns escape glob characters so a path matches only itself', () => {
    expect(includePattern('[x] y*/q?')).toBe('/\\[x\\] y\\*/q\\?');
    expect(includePattern('photos/2024')).toBe('/photos/2024');
  });
  it('moved-aside names never take an existing name', () => {
    const at = new Date('2026-11-25T19:44:04.123Z');
    expect(asideName('photos', at, () => false)).toBe('photos.before-restore-20261125T194404Z');
    const taken = new Set([
      'photos.before-restore-20261125T194404Z',
      'photos.before-restore-20261125T194404Z-2',
    ]);
    expect(asideName('photos', at, (n) => taken.has(n))).toBe('photos.before-restore-20261125T194404Z-3');
  });
  it('the typed confirmation names the part', () => {
    expect(restorePhrase({ kind: 'share', name: 'media' })).toBe('RESTORE share media');
    expect(restorePhrase({ kind: 'stack', name: 'web' })).toBe('RESTORE stack web');
  });
  it('a new folder is inside a share or the appdata location', () => {
    expect(checkFolderTarget('/mnt/user/media/restored')).toBeNull();
    expect(checkFolderTarget('/mnt/cache/restored')).toBeNull();
    for (const bad of [
      '/mnt/user/media',
      '/mnt/user',
      '/etc/x',
      '/mnt/cache',
      '/mnt/user/m/../x',
      'mnt/user/a/b',
    ])
      expect(checkFolderTarget(bad)?.code, bad).toBe('bad_request');
  });
  it('a whole snapshot restores its top level (a share) or its app-data folders (a stack)', () => {
    const base = {
      chosen: [],
      topLevel: ['b', 'a'],
      tagRoots: ['/mnt/cache/appdata/web'],
      appdataRoot: '/mnt/cache',
    };
    expect(restoreRoots({ ...base, part: { kind: 'share', name: 'm' } })).toEqual(['a', 'b']);
    expect(restoreRoots({ ...base, part: { kind: 'stack', name: 'web' } })).toEqual(['appdata/web']);
    expect(restoreRoots({ ...base, chosen: ['a/x'], part: { kind: 'share', name: 'm' } })).toEqual(['a/x']);
  });
});
