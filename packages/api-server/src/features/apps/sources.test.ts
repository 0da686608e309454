/** Catalog sources through the real server (08 §13). */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

let s: Sandbox;
const catalogDir = () => path.join(s.root, 'var/lib/appliance/catalog');
const key = Buffer.alloc(32, 7).toString('base64');

beforeAll(async () => {
  s = await startSandbox();
});
afterAll(async () => {
  await s?.close();
});

describe('API document', () => {
  it('documents the apps routes', async () => {
    const r = await s.call('GET', '/openapi.json');
    expect(r.status).toBe(200);
    for (const p of [
      '/api/v1/catalog',
      '/api/v1/templates/{id}/install',
      '/api/v1/templates/{id}/preview',
      '/api/v1/stacks',
      '/api/v1/catalog/sources',
    ])
      expect(Object.keys(r.body.paths)).toContain(p);
  });
});

describe('catalog sources', () => {
  it('adds a directory source after builtin and lists its templates', async () => {
    const r = await s.call('POST', '/catalog/sources', { id: 'mine', kind: 'directory' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: 'mine',
      kind: 'directory',
      position: 1,
      url: null,
      serial: null,
      lastRefreshedAt: null,
      templateCount: 0,
      error: null,
    });
    expect(fs.statSync(path.join(catalogDir(), 'mine')).isDirectory()).toBe(true);
    fs.mkdirSync(path.join(catalogDir(), 'mine', 'jellyfin'));
    fs.writeFileSync(path.join(catalogDir(), 'mine', 'jellyfin', 'compose.yaml'), 'not: valid');
    fs.mkdirSync(path.join(catalogDir(), 'mine', 'broken'));
    fs.writeFileSync(path.join(catalogDir(), 'mine', 'broken', 'compose.yaml'), 'services: [\n');
    const c = await s.call('GET', '/catalog');
    const jf = c.body.templates.find((t: { id: string }) => t.id === 'jellyfin');
    expect(jf).toMatchObject({ source: 'builtin', alsoIn: ['mine'], problems: [] });
    const broken = c.body.templates.find((t: { id: string }) => t.id === 'broken');
    expect(broken).toMatchObject({ source: 'mine', title: 'broken', categories: [], revision: null });
    expect(broken.problems.length).toBeGreaterThan(0);
    const install = await s.call('POST', '/templates/broken/preview', {});
    expect(install.status).toBe(422);
    expect(install.body).toMatchObject({
      code: 'template_invalid',
      details: { template: 'broken', source: 'mine' },
    });
  });
  it('refuses duplicates, builtin, bad ids and wrong fields', async () => {
    const cases: [unknown, number, string][] = [
      [{ id: 'mine', kind: 'directory' }, 409, 'catalog_source_exists'],
      [{ id: 'builtin', kind: 'directory' }, 409, 'catalog_source_exists'],
      [{ id: 'Bad_Id', kind: 'directory' }, 400, 'bad_request'],
      [{ id: 'x'.repeat(33), kind: 'directory' }, 400, 'bad_request'],
      [{ id: 'd2', kind: 'directory', url: 'https://e.org/x' }, 400, 'bad_request'],
      [{ id: 'h1', kind: 'https', url: 'https://e.org/x' }, 400, 'bad_request'],
      [{ id: 'h1', kind: 'https', url: 'http://e.org/x', publicKey: key }, 400, 'bad_request'],
      [{ id: 'h1', kind: 'https', url: 'https://e.org/x?y', publicKey: key }, 400, 'bad_request'],
      [{ id: 'h1', kind: 'https', url: 'https://e.org/x', publicKey: 'short' }, 400, 'bad_request'],
      [{ id: 'h1', kind: 'ftp' }, 400, 'bad_request'],
    ];
    for (const [body, status, code] of cases) {
      const r = await s.call('POST', '/catalog/sources', body);
      expect([r.status, r.body.code]).toEqual([status, code]);
    }
  });
  it('refuses a symlinked source folder', async () => {
    fs.symlinkSync('/etc', path.join(catalogDir(), 'linked'));
    const r = await s.call('POST', '/catalog/sources', { id: 'linked', kind: 'directory' });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('catalog_source_path_unsafe');
  });
  it('an https source whose first refresh fails is kept, empty, with its error; refresh answers 502', async () => {
    const r = await s.call('POST', '/catalog/sources', {
      id: 'remote',
      kind: 'https',
      url: 'https://127.0.0.1:9/apps.tar.zst',
      publicKey: key,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: 'remote', kind: 'https', position: 2, templateCount: 0 });
    expect(r.body.error).toMatch(/download failed/);
    const again = await s.call('POST', '/catalog/sources/remote/refresh');
    expect(again.status).toBe(502);
    expect(again.body.code).toBe('catalog_refresh_failed');
  });
  it('refresh refuses other kinds and unknown ids', async () => {
    expect((await s.call('POST', '/catalog/sources/mine/refresh')).body.code).toBe(
      'catalog_source_not_refreshable',
    );
    expect((await s.call('POST', '/catalog/sources/nope/refresh')).status).toBe(404);
  });
  it('delete: builtin refused, unknown 404, a directory source keeps its files', async () => {
    expect((await s.call('DELETE', '/catalog/sources/builtin')).body.code).toBe('catalog_source_builtin');
    expect((await s.call('DELETE', '/catalog/sources/nope')).body.code).toBe('catalog_source_not_found');
    const r = await s.call('DELETE', '/catalog/sources/mine');
    expect(r.status).toBe(204);
    expect(fs.existsSync(path.join(catalogDir(), 'mine', 'broken', 'compose.yaml'))).toBe(true);
    const c = await s.call('GET', '/catalog');
    expect(c.body.sources.map((x: { id: string }) => x.id)).toEqual(['builtin', 'remote']);
    expect((await s.call('DELETE', '/catalog/sources/remote')).status).toBe(204);
  });
});
