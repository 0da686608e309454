/**
 * The https source refresh with real Ed25519, zstd and tar; the network is replaced by an
 * in-memory server (the machine has no outside network).
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zstdCompressSync } from 'node:zlib';
import { create as tarCreate } from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSourceUrl, type HttpGet, RefreshError, refreshHttpsSource } from './https-source.ts';

let work: string;
const keys = generateKeyPairSync('ed25519');
const publicKey = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const URL_ = 'https://catalog.example.org/apps.tar.zst';

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'https-source-'));
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

async function archiveOf(
  files: Record<string, string>,
  extra: { symlink?: string; absolute?: string } = {},
): Promise<Buffer> {
  const src = fs.mkdtempSync(path.join(work, 'src-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
    fs.writeFileSync(path.join(src, rel), text);
  }
  if (extra.symlink) fs.symlinkSync('/etc/passwd', path.join(src, extra.symlink));
  const list = fs.readdirSync(src);
  const out = path.join(work, `a-${Math.random()}.tar`);
  await tarCreate({ cwd: src, file: out, portable: true, preservePaths: Boolean(extra.absolute) }, [
    ...list,
    ...(extra.absolute ? [extra.absolute] : []),
  ]);
  return zstdCompressSync(fs.readFileSync(out));
}

function server(archive: Buffer, signature: Buffer, redirects: Record<string, string> = {}): HttpGet {
  return async (url) => {
    if (redirects[url]) return { status: 302, location: redirects[url]!, body: new Uint8Array() };
    if (url === URL_) return { status: 200, location: null, body: archive };
    if (url === `${URL_}.sig`) return { status: 200, location: null, body: signature };
    return { status: 404, location: null, body: new Uint8Array() };
  };
}

const template =
  'services:\n  app:\n    image: busybox:1.37.0\nx-service: {schema: 1, id: app, revision: 1, title: A, categories: [t], docs: "https://e.org/"}\n';
const refresh = (get: HttpGet, storedSerial: number | null = null) =>
  refreshHttpsSource({ catalogDir: work, sourceId: 'remote', url: URL_, publicKey, storedSerial, get });

describe('refreshHttpsSource', () => {
  it('verifies, unpacks and swaps in the new copy', async () => {
    const archive = await archiveOf({
      'catalog.json': '{"schema":1,"serial":7}',
      'app/compose.yaml': template,
    });
    expect(await refresh(server(archive, sign(null, archive, keys.privateKey)))).toBe(7);
    expect(fs.readFileSync(path.join(work, 'remote/app/compose.yaml'), 'utf8')).toBe(template);
    const next = await archiveOf({
      'catalog.json': '{"schema":1,"serial":8}',
      'other/compose.yaml': template,
    });
    expect(await refresh(server(next, sign(null, next, keys.privateKey)), 7)).toBe(8);
    expect(fs.readdirSync(path.join(work, 'remote')).sort()).toEqual(['catalog.json', 'other']);
    expect(fs.readdirSync(work).filter((n) => n.startsWith('.'))).toEqual([]);
  });
  it('keeps the old copy on a bad signature, an old serial or a missing manifest', async () => {
    const good = await archiveOf({ 'catalog.json': '{"schema":1,"serial":3}', 'app/compose.yaml': template });
    await refresh(server(good, sign(null, good, keys.privateKey)));
    const other = await archiveOf({ 'catalog.json': '{"schema":1,"serial":4}' });
    await expect(refresh(server(other, sign(null, good, keys.privateKey)), 3)).rejects.toMatchObject({
      message: expect.stringMatching(/signature/),
      kind: 'signature',
    });
    await expect(refresh(server(good, sign(null, good, keys.privateKey)), 3)).rejects.toMatchObject({
      message: expect.stringMatching(/not above/),
      kind: 'serial',
    });
    const noManifest = await archiveOf({ 'app/compose.yaml': template });
    await expect(
      refresh(server(noManifest, sign(null, noManifest, keys.privateKey)), 3),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/catalog.json/),
      kind: 'archive',
    });
    expect(fs.existsSync(path.join(work, 'remote/app/compose.yaml'))).toBe(true);
  });
  it('refuses links and absolute paths', async () => {
    const linked = await archiveOf({ 'catalog.json': '{"schema":1,"serial":1}' }, { symlink: 'evil' });
    await expect(refresh(server(linked, sign(null, linked, keys.privateKey)))).rejects.toThrow(
      /SymbolicLink/,
    );
    const abs = await archiveOf({ 'catalog.json': '{"schema":1,"serial":1}' }, { absolute: '/etc/hostname' });
    await expect(refresh(server(abs, sign(null, abs, keys.privateKey)))).rejects.toThrow(/absolute/);
    expect(fs.existsSync(path.join(work, 'remote'))).toBe(false);
  });
  it('follows at most 3 same-host redirects', async () => {
    const archive = await archiveOf({ 'catalog.json': '{"schema":1,"serial":1}' });
    const sig = sign(null, archive, keys.privateKey);
    const evil = server(archive, sig, { [URL_]: 'https://elsewhere.example.com/x' });
    await expect(refresh(evil)).rejects.toMatchObject({
      message: 'a redirect to another host',
      kind: 'network',
    });
    const hop = (n: number) => `https://catalog.example.org/hop${n}`;
    const get = server(archive, sig, {
      [hop(1)]: hop(2),
      [hop(2)]: hop(3),
      [hop(3)]: hop(4),
      [hop(4)]: URL_,
    });
    await expect(
      refreshHttpsSource({
        catalogDir: work,
        sourceId: 'remote',
        url: hop(1),
        publicKey,
        storedSerial: null,
        get,
      }),
    ).rejects.toBeInstanceOf(RefreshError);
  });
  it('checks source URLs', () => {
    expect(checkSourceUrl('https://e.org/c.tar.zst')).toBeNull();
    expect(checkSourceUrl('http://e.org/c')).toMatch(/https/);
    expect(checkSourceUrl('https://u:p@e.org/c')).toMatch(/credentials/);
    expect(checkSourceUrl('https://e.org/c?x=1')).toMatch(/query/);
    expect(checkSourceUrl('https://e.org/c#x')).toMatch(/fragment/);
  });
});
