/**
 * The web UI served by the real server (web-ui.ts): hashed assets immutable, index.html
 * revalidated and answering deep links, the CSP on every answer, no symlink out of the folder,
 * the API untouched, and a service without a build that says how to make one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../test-support/sandbox.ts';

const saved = process.env['APPLIANCE_WEB_DIR'];
afterEach(() => {
  if (saved === undefined) delete process.env['APPLIANCE_WEB_DIR'];
  else process.env['APPLIANCE_WEB_DIR'] = saved;
});

describe('a built UI', () => {
  let s: Sandbox;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-web-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Appliance</title>');
    fs.writeFileSync(path.join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
    fs.writeFileSync(path.join(os.tmpdir(), 'appliance-web-secret.txt'), 'secret');
    fs.symlinkSync(path.join(os.tmpdir(), 'appliance-web-secret.txt'), path.join(dir, 'leak.txt'));
    process.env['APPLIANCE_WEB_DIR'] = dir;
    s = await startSandbox();
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / with no-cache and the CSP', async () => {
    const r = await fetch(`${s.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'self';/);
    expect(await r.text()).toContain('<title>Appliance</title>');
  });

  it('answers a deep link with index.html', async () => {
    const r = await fetch(`${s.url}/disks/sdb/smart`);
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('<title>Appliance</title>');
    expect(r.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves hashed assets as immutable for a year, other files revalidated', async () => {
    const js = await fetch(`${s.url}/assets/index-AbC123.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    const svg = await fetch(`${s.url}/favicon.svg`);
    expect(svg.headers.get('cache-control')).toBe('no-cache');
  });

  it('a missing asset is 404, a symlink out of the folder is not followed', async () => {
    expect((await fetch(`${s.url}/assets/gone-123.js`)).status).toBe(404);
    const leak = await fetch(`${s.url}/leak.txt`);
    expect(leak.status).toBe(404);
    expect(await leak.text()).not.toContain('secret');
  });

  it('leaves the API alone: routes answer JSON, an unknown API path is the API 404', async () => {
    const r = await s.call('GET', '/setup/status', undefined, { token: null });
    expect(r.body).toEqual({ setupRequired: false });
    const missing = await fetch(`${s.url}/api/v1/nothing-here`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('not_found');
  });
});

describe('no UI built', () => {
  it('the service starts, the API works, and / says how to build the UI', async () => {
    process.env['APPLIANCE_WEB_DIR'] = path.join(os.tmpdir(), 'appliance-web-none-here');
    const s = await startSandbox();
    try {
      const r = await fetch(`${s.url}/`);
      expect(r.status).toBe(503);
      expect(await r.text()).toMatch(/pnpm --filter @appliance\/web build/);
      expect((await s.call('GET', '/users')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
