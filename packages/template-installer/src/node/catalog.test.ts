/** The catalog reader on real folders: order, first source wins, invalid templates, sync of builtin. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CatalogSourceRow, createCatalog, SHIPPED_CATALOG, syncBuiltinCatalog } from './catalog.ts';

let dir: string;
const row = (
  id: string,
  position: number,
  kind: CatalogSourceRow['kind'] = 'directory',
): CatalogSourceRow => ({
  id,
  kind,
  position,
  url: null,
  serial: null,
  lastRefreshedAt: null,
  lastError: null,
});
const template = (id: string, revision = 1, title = 'T') => `services:
  app:
    image: busybox:1.37.0
x-service: {schema: 1, id: ${id}, revision: ${revision}, title: ${title}, categories: [testing], docs: "https://example.org/"}
`;
const put = (source: string, id: string, text: string) => {
  fs.mkdirSync(path.join(dir, source, id), { recursive: true });
  fs.writeFileSync(path.join(dir, source, id, 'compose.yaml'), text);
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('createCatalog', () => {
  it('builtin first, then sources by position; the first source with the id wins', async () => {
    put('builtin', 'app', template('app', 1, 'Builtin'));
    put('b', 'app', template('app', 5, 'B'));
    put('a', 'app', template('app', 9, 'A'));
    put('a', 'other', template('other'));
    const catalog = createCatalog({
      catalogDir: dir,
      sources: async () => [row('b', 2), row('a', 1), row('builtin', 0, 'builtin')],
    });
    const found = await catalog.find('app');
    expect(found?.source).toBe('builtin');
    const view = await catalog.view(new Map([['app', ['app-2', 'app']]]));
    expect(view.sources.map((s) => [s.id, s.templateCount])).toEqual([
      ['builtin', 1],
      ['a', 2],
      ['b', 1],
    ]);
    expect(view.templates.map((t) => [t.id, t.source, t.alsoIn, t.stacks])).toEqual([
      ['app', 'builtin', ['a', 'b'], ['app', 'app-2']],
      ['other', 'a', [], []],
    ]);
  });
  it('an invalid template still wins (no fall-through) and shows its problems', async () => {
    put('builtin', 'app', template('wrong-id'));
    put('a', 'app', template('app'));
    const catalog = createCatalog({ catalogDir: dir, sources: async () => [row('a', 1)] });
    const found = await catalog.find('app');
    expect(found?.source).toBe('builtin');
    expect(found?.result.ok).toBe(false);
    const t = (await catalog.view(new Map())).templates[0]!;
    expect(t).toMatchObject({
      id: 'app',
      source: 'builtin',
      title: 'T',
      problems: [{ path: 'x-service.id' }],
    });
  });
  it('ignores symlinks, bad names, folders without a regular compose.yaml; a missing source shows an error', async () => {
    put('a', 'good', template('good'));
    put('a', 'Bad_Name', template('bad'));
    fs.mkdirSync(path.join(dir, 'a', 'empty'));
    fs.symlinkSync(path.join(dir, 'a', 'good'), path.join(dir, 'a', 'linked'));
    fs.mkdirSync(path.join(dir, 'a', 'linkfile'));
    fs.symlinkSync(
      path.join(dir, 'a', 'good', 'compose.yaml'),
      path.join(dir, 'a', 'linkfile', 'compose.yaml'),
    );
    const catalog = createCatalog({ catalogDir: dir, sources: async () => [row('a', 1), row('gone', 2)] });
    const view = await catalog.view(new Map());
    expect(view.templates.map((t) => t.id)).toEqual(['good']);
    expect(view.sources.find((s) => s.id === 'gone')?.error).toMatch(/missing/);
    expect(await catalog.find('linked')).toBeNull();
    expect(await catalog.find('../a/good')).toBeNull();
  });
  it('re-reads a changed file (cache keyed by content hash)', async () => {
    put('builtin', 'app', template('app', 1));
    const catalog = createCatalog({ catalogDir: dir, sources: async () => [] });
    const first = await catalog.find('app');
    put('builtin', 'app', template('app', 2));
    const second = await catalog.find('app');
    expect(first?.result.ok && first.result.template.revision).toBe(1);
    expect(second?.result.ok && second.result.template.revision).toBe(2);
  });
});

describe('syncBuiltinCatalog', () => {
  it('copies the shipped catalog when it differs, and not again when equal', async () => {
    expect(await syncBuiltinCatalog(dir)).toBe(true);
    expect(fs.readdirSync(path.join(dir, 'builtin')).sort()).toEqual(fs.readdirSync(SHIPPED_CATALOG).sort());
    expect(await syncBuiltinCatalog(dir)).toBe(false);
    fs.writeFileSync(path.join(dir, 'builtin', 'jellyfin', 'compose.yaml'), 'tampered');
    fs.mkdirSync(path.join(dir, 'builtin', 'extra'));
    expect(await syncBuiltinCatalog(dir)).toBe(true);
    expect(fs.existsSync(path.join(dir, 'builtin', 'extra'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'builtin', 'jellyfin', 'compose.yaml'), 'utf8')).toBe(
      fs.readFileSync(path.join(SHIPPED_CATALOG, 'jellyfin', 'compose.yaml'), 'utf8'),
    );
    expect(fs.readdirSync(dir)).toEqual(['builtin']);
  });
});
