/**
 * catalog_check_failed through the real server and a real HTTPS catalog source on loopback (a
 * zstd tar signed with Ed25519): a signature that does not match, then a serial that does not
 * advance, each raised once to a routed webhook and SMTP receiver; a network failure raises
 * nothing; a refresh that passes every check clears it.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf, labHostRoot, type Receivers, routedReceivers } from '../../../test-support/watchers.ts';

const run = promisify(execFile);

describe('catalog_check_failed', () => {
  let s: Sandbox;
  let rx: Receivers;
  let work: string;
  let server: https.Server;
  let hostRoot: ReturnType<typeof labHostRoot>;
  const served: { archive: Buffer | null; signature: Buffer | null } = { archive: null, signature: null };
  const publisher = generateKeyPairSync('ed25519');
  const intruder = generateKeyPairSync('ed25519');
  const publicKey = publisher.publicKey
    .export({ format: 'der', type: 'spki' })
    .subarray(-32)
    .toString('base64');
  let url = '';
  let defaultCAs: string[] = [];

  async function catalog(serial: number): Promise<Buffer> {
    const dir = fs.mkdtempSync(path.join(work, 'catalog-'));
    fs.writeFileSync(path.join(dir, 'catalog.json'), JSON.stringify({ schema: 1, serial }));
    fs.mkdirSync(path.join(dir, 'notes'));
    fs.writeFileSync(
      path.join(dir, 'notes', 'compose.yaml'),
      'services:\n  app:\n    image: busybox:1.37.0\nx-service: {schema: 1, id: notes, revision: 1, title: Notes, categories: [t], docs: "https://e.org/"}\n',
    );
    const out = path.join(work, `catalog-${serial}-${Math.random()}.tar.zst`);
    await run('tar', ['--zstd', '-C', dir, '-cf', out, '.']);
    return fs.readFileSync(out);
  }
  const refresh = () => s.call('POST', '/catalog/sources/remote/refresh');

  beforeAll(async () => {
    await requirePrerequisites({ tools: ['openssl', 'tar', 'zstd'] });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'watchers-catalog-'));
    const cert = path.join(work, 'cert.pem');
    const key = path.join(work, 'key.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    // The service's own HTTPS client (fetch) trusts this catalog server's certificate.
    defaultCAs = tls.getCACertificates('default');
    tls.setDefaultCACertificates([...defaultCAs, fs.readFileSync(cert, 'utf8')]);
    server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
      const body =
        req.url === '/apps.tar.zst'
          ? served.archive
          : req.url === '/apps.tar.zst.sig'
            ? served.signature
            : null;
      if (!body) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/apps.tar.zst`;
    hostRoot = labHostRoot();
    s = await startSandbox({ hostRoot: hostRoot.dir });
    rx = await routedReceivers(s, ['catalog_check_failed']);
    const first = await catalog(1);
    served.archive = first;
    served.signature = sign(null, first, publisher.privateKey);
    const added = await s.call('POST', '/catalog/sources', { id: 'remote', kind: 'https', url, publicKey });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toMatchObject({ serial: 1, error: null, templateCount: 1 });
  }, 120_000);

  afterAll(async () => {
    await s?.close();
    await rx?.close();
    server?.close();
    if (defaultCAs.length > 0) tls.setDefaultCACertificates(defaultCAs);
    hostRoot?.remove();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('a signature that does not match the source key: raised once, the old copy kept', async () => {
    const next = await catalog(2);
    served.archive = next;
    served.signature = sign(null, next, intruder.privateKey);
    const r = await refresh();
    expect([r.status, r.body.code]).toEqual([502, 'catalog_refresh_failed']);
    const { webhook, mail } = await rx.waitFor('catalog_check_failed');
    expect(webhook[0]!.title).toBe('Catalog source remote: the signature check failed');
    expect(webhook[0]!.message).toBe(
      `The refresh of the catalog source remote (${url}) was refused: the signature does not match the archive and the source public key. Nothing of the download was used; the previous copy of the catalog is kept. If the publisher did not change their key or release an older catalog, someone may be tampering with the source: check with the publisher before trusting it again (the next refresh that passes every check clears this).`,
    );
    expect(mail[0]!.subject).toBe('[warning] Catalog source remote: the signature check failed');
    // refused again: still the same condition, nothing more raised
    expect((await refresh()).status).toBe(502);
    expect(alertsOf(s, 'catalog_check_failed')).toHaveLength(1);
    const held = (await s.call('GET', '/health')).body.conditions;
    expect(held).toEqual([
      expect.objectContaining({ key: 'catalog:remote', source: 'catalog', value: 'signature' }),
    ]);
  });

  it('a network failure raises nothing, and clears nothing', async () => {
    served.archive = null;
    const r = await refresh();
    expect(r.status).toBe(502);
    expect(r.body.message).toContain('HTTP 404');
    expect(alertsOf(s, 'catalog_check_failed')).toHaveLength(1);
    expect((await s.call('GET', '/health')).body.conditions).toHaveLength(1);
  });

  it('a refresh that passes clears it; a serial that does not advance raises again', async () => {
    const next = await catalog(2);
    served.archive = next;
    served.signature = sign(null, next, publisher.privateKey);
    const ok = await refresh();
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.serial).toBe(2);
    expect((await s.call('GET', '/health')).body.conditions).toEqual([]);
    const old = await catalog(2);
    served.archive = old;
    served.signature = sign(null, old, publisher.privateKey);
    expect((await refresh()).status).toBe(502);
    const { webhook } = await rx.waitFor('catalog_check_failed', 2);
    expect(webhook[1]!.title).toBe('Catalog source remote: the serial check failed');
    expect(webhook[1]!.message).toContain('the catalog serial 2 is not above the current 2');
  });
});
