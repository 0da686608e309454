/** The catalog-source operations on in-memory ports over a real catalog directory. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Refusal } from '@appliance/common';
import { afterEach, describe, expect, it } from 'vitest';
import { RefreshError } from '../node/https-source.ts';
import { memorySourcesDeps } from '../test-support/index.ts';
import { addSource, catalogConditionKey, refreshSource, removeSource } from './operations.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sources-'));
  dirs.push(dir);
  return memorySourcesDeps(path.join(dir, 'catalog'), () => new Date('2026-11-28T12:00:00Z'));
}

const key = Buffer.alloc(32, 7).toString('base64');
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => (e instanceof Refusal ? e.code : String(e)),
  );

describe('catalog sources', () => {
  it('adds a directory source after builtin with its folder; refuses a taken id, builtin and bad fields', async () => {
    const deps = setup();
    expect(await addSource(deps, { id: 'mine', kind: 'directory' })).toEqual({
      id: 'mine',
      kind: 'directory',
      position: 1,
      url: null,
      serial: null,
      lastRefreshedAt: null,
      templateCount: 0,
      error: null,
    });
    expect(fs.statSync(path.join(deps.catalogDir, 'mine')).isDirectory()).toBe(true);
    expect(await code(addSource(deps, { id: 'mine', kind: 'directory' }))).toBe('catalog_source_exists');
    expect(await code(addSource(deps, { id: 'builtin', kind: 'directory' }))).toBe('catalog_source_exists');
    expect(await code(addSource(deps, { id: 'Bad Id', kind: 'directory' }))).toBe('bad_request');
    expect(await code(addSource(deps, { id: 'web', kind: 'https', url: 'https://x.example' }))).toBe(
      'bad_request',
    );
    expect(await code(addSource(deps, { id: 'd', kind: 'directory', url: 'https://x.example' }))).toBe(
      'bad_request',
    );
    expect(deps.store.audits).toEqual(['catalog_source.add catalog/sources/mine ok']);
  });

  it('refuses a symlinked folder and writes nothing', async () => {
    const deps = setup();
    fs.mkdirSync(deps.catalogDir, { recursive: true });
    fs.symlinkSync('/etc', path.join(deps.catalogDir, 'evil'));
    expect(await code(addSource(deps, { id: 'evil', kind: 'directory' }))).toBe('catalog_source_path_unsafe');
    expect((await deps.store.list()).map((r) => r.id)).toEqual(['builtin']);
  });

  it('a failed signature check keeps the source with its error, raises the condition; a passing refresh clears it', async () => {
    const deps = setup();
    let fail = true;
    deps.refresh = async (o) => {
      if (fail) throw new RefreshError('the signature does not match the key', 'signature');
      fs.mkdirSync(path.join(o.catalogDir, o.sourceId), { recursive: true }); // the unpacked catalog
      return 7;
    };
    const added = await addSource(deps, {
      id: 'web',
      kind: 'https',
      url: 'https://example.org/c',
      publicKey: key,
    });
    expect(added).toMatchObject({ serial: null, error: 'the signature does not match the key' });
    expect(deps.conditions.held.get(catalogConditionKey('web'))).toMatchObject({
      source: 'catalog',
      report: { eventType: 'catalog_check_failed', value: 'signature' },
    });
    expect(await code(refreshSource(deps, 'web'))).toBe('catalog_refresh_failed');
    fail = false;
    expect(await refreshSource(deps, 'web')).toMatchObject({
      serial: 7,
      lastRefreshedAt: '2026-11-28T12:00:00.000Z',
      error: null,
    });
    expect(deps.conditions.held.size).toBe(0);
    expect(deps.store.audits.slice(1)).toEqual([
      'catalog_source.refresh catalog/sources/web failed',
      'catalog_source.refresh catalog/sources/web ok',
    ]);
  });

  it('refresh and remove: other kinds, unknown ids and builtin are refused', async () => {
    const deps = setup();
    await addSource(deps, { id: 'mine', kind: 'directory' });
    expect(await code(refreshSource(deps, 'mine'))).toBe('catalog_source_not_refreshable');
    expect(await code(refreshSource(deps, 'nope'))).toBe('catalog_source_not_found');
    expect(await code(removeSource(deps, 'builtin'))).toBe('catalog_source_builtin');
    expect(await code(removeSource(deps, 'nope'))).toBe('catalog_source_not_found');
    await removeSource(deps, 'mine');
    expect((await deps.store.list()).map((r) => r.id)).toEqual(['builtin']);
    expect(fs.existsSync(path.join(deps.catalogDir, 'mine'))).toBe(true); // a directory source keeps its files
  });
});
