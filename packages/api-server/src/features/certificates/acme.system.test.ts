/**
 * ACME renewal against Debian's pebble on loopback (its own TLS from a throwaway CA, a mock DNS of
 * pebble-challtestsrv answering 127.0.0.1): the service answers HTTP-01 itself, renews a
 * certificate 10 days from expiry, serves the new one without a restart and clears
 * certificate_expiring; with the clock driven to 29 days before the new one expires it renews
 * again; when pebble refuses (the name resolves to an address where nothing answers the
 * challenge), certificate_renewal_failed carries pebble's problem detail, once.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { fixedClock } from '@appliance/common';
import { makeTlsFiles, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf } from '../../../test-support/watchers.ts';

const run = promisify(execFile);

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function waitForPort(port: number): Promise<void> {
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => {
        c.destroy();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

/** The certificate the HTTPS listener serves now (a new connection). */
function served(url: string): Promise<X509Certificate> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.destroy();
      resolve(new X509Certificate(raw));
    });
    socket.on('error', reject);
  });
}

describe('certificate renewal over ACME (pebble)', () => {
  let s: Sandbox;
  let work: string;
  let pebbleTls: ReturnType<typeof makeTlsFiles>;
  const procs: ChildProcess[] = [];
  let mgmtPort: number;
  let httpPort: number;
  const clock = fixedClock(new Date());
  const domain = 'nas.example.test';

  beforeAll(async () => {
    await requirePrerequisites({ tools: ['pebble', 'pebble-challtestsrv', 'openssl'] });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'acme-'));
    pebbleTls = makeTlsFiles();
    const [acmePort, pebbleMgmt, dnsPort, challMgmt] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    httpPort = await freePort();
    mgmtPort = challMgmt;
    fs.writeFileSync(
      path.join(work, 'pebble.json'),
      JSON.stringify({
        pebble: {
          listenAddress: `127.0.0.1:${acmePort}`,
          managementListenAddress: `127.0.0.1:${pebbleMgmt}`,
          certificate: pebbleTls.cert,
          privateKey: pebbleTls.key,
          httpPort,
          tlsPort: await freePort(),
          ocspResponderURL: '',
          externalAccountBindingRequired: false,
        },
      }),
    );
    procs.push(
      spawn(
        'pebble-challtestsrv',
        [
          '-dns01',
          `127.0.0.1:${dnsPort}`,
          '-http01',
          '',
          '-https01',
          '',
          '-tlsalpn01',
          '',
          '-management',
          `127.0.0.1:${challMgmt}`,
          '-defaultIPv6',
          '',
        ],
        { stdio: 'ignore' },
      ),
    );
    procs.push(
      spawn('pebble', ['-config', path.join(work, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`], {
        stdio: 'ignore',
        // no authorization reuse: each order is validated again (the refusal below needs one)
        env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
      }),
    );
    await waitForPort(acmePort);
    await waitForPort(challMgmt);
    // the certificate served at first: self-signed, 10 days left
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
      '10',
      '-subj',
      `/CN=${domain}`,
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    s = await startSandbox({
      config: {
        tls: 'on',
        tlsCert: cert,
        tlsKey: key,
        acme: {
          directory: `https://127.0.0.1:${acmePort}/dir`,
          domain,
          email: null,
          accountKey: null,
          httpListen: { host: '127.0.0.1', port: httpPort },
          caFile: pebbleTls.ca,
        },
      },
      start: { clock, scheduler: false },
      // the sandbox's own calls go through the Unix socket: the TCP listener serves HTTPS
      admin: false,
    });
    const admin = await local('POST', '/setup/admin', {
      username: 'admin',
      password: 'correct horse battery',
    });
    expect(admin.status, admin.text).toBe(201);
  });
  afterAll(async () => {
    await s?.close();
    for (const p of procs) p.kill();
    if (work) fs.rmSync(work, { recursive: true, force: true });
    if (pebbleTls) fs.rmSync(pebbleTls.dir, { recursive: true, force: true });
  });

  const local = (method: string, p: string, body?: unknown) =>
    s.call(method, p, body, { via: 'unix', token: null });
  const holding = async () =>
    ((await local('GET', '/health')).body.conditions as Array<{ eventType: string }>).map((c) => c.eventType);

  it('renews inside the window, serves the new certificate without a restart, clears certificate_expiring', async () => {
    const before = await served(s.url);
    await s.server.ctx.watchers.runOnce('certificate');
    expect(await holding()).toContain('certificate_expiring');

    const status = await s.server.ctx.watchers.runOnce('certificate-renewal');
    expect(status.error).toBeNull();
    const after = await served(s.url);
    expect(after.fingerprint256).not.toBe(before.fingerprint256);
    expect(after.subjectAltName).toContain(`DNS:${domain}`);
    expect(after.issuer).toContain('Pebble');
    expect(fs.readFileSync(path.join(work, 'cert.pem'), 'utf8')).toContain(after.toString().split('\n')[1]);
    expect(fs.statSync(path.join(work, 'key.pem')).mode & 0o777).toBe(0o600);
    expect(await holding()).not.toContain('certificate_expiring');
    expect(alertsOf(s, 'certificate_renewal_failed')).toHaveLength(0);

    // outside the window nothing is ordered; 29 days before the new expiry it renews again
    await s.server.ctx.watchers.runOnce('certificate-renewal');
    expect((await served(s.url)).fingerprint256).toBe(after.fingerprint256);
    clock.set(new Date(Date.parse(after.validTo) - 29 * 24 * 3600 * 1000));
    await s.server.ctx.watchers.runOnce('certificate-renewal');
    expect((await served(s.url)).fingerprint256).not.toBe(after.fingerprint256);
  });

  it('pebble refusing: certificate_renewal_failed with its problem detail, once; the served certificate stays', async () => {
    const current = await served(s.url);
    clock.set(new Date(Date.parse(current.validTo) - 5 * 24 * 3600 * 1000));
    // the name now resolves to an address where nothing answers the challenge
    const res = await fetch(`http://127.0.0.1:${mgmtPort}/add-a`, {
      method: 'POST',
      body: JSON.stringify({ host: domain, addresses: ['127.0.0.2'] }),
    });
    expect(res.status).toBe(200);
    await s.server.ctx.watchers.runOnce('certificate-renewal');
    await s.server.ctx.watchers.runOnce('certificate-renewal');
    const alerts = alertsOf(s, 'certificate_renewal_failed');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain(`127.0.0.2:${httpPort}`);
    expect(alerts[0]!.message).toContain('connection refused');
    expect((await served(s.url)).fingerprint256).toBe(current.fingerprint256);

    const o = await local('GET', '/notifications/event-types');
    const observed = Object.fromEntries(
      o.body.eventTypes.map((e: { eventType: string; observed: boolean }) => [e.eventType, e.observed]),
    );
    expect(observed['certificate_renewal_failed']).toBe(true);
  });
});
