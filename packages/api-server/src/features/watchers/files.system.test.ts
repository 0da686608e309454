/**
 * The drift and certificate watchers through the real server: smb.conf and a stack's compose file
 * edited by hand (config_drift_detected with the file and a diff summary, cleared when the service
 * writes the file again or the edit is undone), and a real certificate (openssl) that expires in 10
 * days (certificate_expiring, cleared by a renewed one). Each event reaches a routed webhook and
 * SMTP receiver once.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpArray } from '../../../test-support/array.ts';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf, labHostRoot, type Receivers, routedReceivers } from '../../../test-support/watchers.ts';

const run = promisify(execFile);

async function certificate(dir: string, name: string, days: number): Promise<{ cert: string; key: string }> {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}.key`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    String(days),
    '-subj',
    `/CN=${name}.lab`,
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  return { cert, key };
}

describe('drift and certificate watchers', () => {
  let s: Sandbox;
  let rx: Receivers;
  let work: string;
  let hostRoot: ReturnType<typeof labHostRoot>;
  let tls: { cert: string; key: string };
  const smbConf = () => path.join(s.root, 'etc/appliance/samba/smb.conf');
  const health = async () => (await s.call('GET', '/health')).body;

  beforeAll(async () => {
    await requirePrerequisites({ tools: ['openssl', 'testparm'] });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'watchers-files-'));
    tls = await certificate(work, 'soon', 10);
    hostRoot = labHostRoot();
    s = await startSandbox({ hostRoot: hostRoot.dir, config: { tlsCert: tls.cert, tlsKey: tls.key } });
    await setUpArray(s);
    rx = await routedReceivers(s, ['config_drift_detected', 'certificate_expiring']);
  }, 120_000);

  afterAll(async () => {
    await s?.close();
    await rx?.close();
    hostRoot?.remove();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('records smb.conf as the service writes it: no drift', async () => {
    const share = await s.call('POST', '/shares', { name: 'media' });
    expect(share.status, share.text).toBe(201);
    const recorded = s.server.ctx.generated.list().map((f) => f.path);
    expect(recorded).toContain('/etc/appliance/samba/smb.conf');
    await s.server.ctx.watchers.runOnce('drift');
    expect((await health()).conditions).toEqual([]);
  });

  it('smb.conf edited by hand: config_drift_detected once, naming the file with a diff summary', async () => {
    const before = fs.readFileSync(smbConf(), 'utf8');
    expect(before).toContain('[media]');
    fs.writeFileSync(smbConf(), before.replace('[media]', '[media]\n   guest ok = yes'));
    await s.server.ctx.watchers.runOnce('drift');
    const { webhook, mail } = await rx.waitFor('config_drift_detected');
    expect(webhook[0]!.title).toBe('Generated file smb.conf changed outside the service');
    expect(webhook[0]!.message).toMatch(
      /^\/etc\/appliance\/samba\/smb\.conf was changed outside the service: 1 line added, 0 lines removed since the service wrote it on \S+:\n\+ \d+: {4}guest ok = yes\n/,
    );
    expect(webhook[0]!.message).toContain('smb.custom.conf');
    expect(mail[0]!.subject).toBe('[warning] Generated file smb.conf changed outside the service');
    expect(mail[0]!.body).toContain('+ ');
    expect(mail[0]!.body).toContain('guest ok = yes');
    for (let i = 0; i < 5; i++) await s.server.ctx.watchers.runOnce('drift');
    expect(alertsOf(s, 'config_drift_detected')).toHaveLength(1);
    const held = (await health()).conditions;
    expect(held).toEqual([
      expect.objectContaining({
        key: 'drift:/etc/appliance/samba/smb.conf',
        subject: '/etc/appliance/samba/smb.conf',
        value: expect.stringMatching(/^sha256 [0-9a-f]{12}$/),
      }),
    ]);
  });

  it('the service writing smb.conf again (a share change) clears it', async () => {
    const r = await s.call('POST', '/shares', { name: 'photos' });
    expect(r.status).toBe(201);
    expect(fs.readFileSync(smbConf(), 'utf8')).not.toContain('guest ok = yes');
    await s.server.ctx.watchers.runOnce('drift');
    expect((await health()).conditions).toEqual([]);
  });

  it('a stack compose file edited by hand is drift too; undoing the edit clears it', async () => {
    const created = await s.call('POST', '/stacks', {
      name: 'notes',
      compose: 'services:\n  app:\n    image: busybox:1.37.0\n',
    });
    expect(created.status, created.text).toBe(201);
    const compose = path.join(s.root, 'var/lib/appliance/stacks/notes/docker-compose.yml');
    const text = fs.readFileSync(compose, 'utf8');
    fs.writeFileSync(compose, text.replace('busybox:1.37.0', 'busybox:latest'));
    await s.server.ctx.watchers.runOnce('drift');
    const { webhook } = await rx.waitFor('config_drift_detected', 2);
    expect(webhook[1]!.message).toContain(
      '/var/lib/appliance/stacks/notes/docker-compose.yml was changed outside the service: 1 line added, 1 line removed',
    );
    expect(webhook[1]!.message).toContain('image: busybox:latest');
    expect(webhook[1]!.message).toContain('edited by hand');
    fs.writeFileSync(compose, text);
    await s.server.ctx.watchers.runOnce('drift');
    expect((await health()).conditions).toEqual([]);
  });

  it('a certificate that expires in 10 days: certificate_expiring once; a renewed one clears it', async () => {
    const types = (await s.call('GET', '/notifications/event-types')).body.eventTypes;
    expect(types.find((t: { eventType: string }) => t.eventType === 'certificate_expiring').observed).toBe(
      true,
    );
    await s.server.ctx.watchers.runOnce('certificate');
    const { webhook, mail } = await rx.waitFor('certificate_expiring');
    expect(webhook[0]!.title).toMatch(/^The TLS certificate expires in (9|10) days$/);
    expect(webhook[0]!.message).toContain(
      `The TLS certificate of this appliance (${tls.cert}, CN=soon.lab) expires on `,
    );
    expect(webhook[0]!.message).toContain('(warning 30 days before)');
    expect(mail[0]!.body).toContain('Install a renewed certificate and key');
    for (let i = 0; i < 3; i++) await s.server.ctx.watchers.runOnce('certificate');
    expect(alertsOf(s, 'certificate_expiring')).toHaveLength(1);
    const renewed = await certificate(work, 'renewed', 400);
    fs.copyFileSync(renewed.cert, tls.cert);
    fs.copyFileSync(renewed.key, tls.key);
    await s.server.ctx.watchers.runOnce('certificate');
    expect((await health()).conditions).toEqual([]);
    const note = (await health()).watchers.find((w: { name: string }) => w.name === 'certificate').notes[0];
    expect(note.message).toMatch(/^CN=renewed\.lab, valid until \d{4}-/);
  });

  it('without a certificate configured or HTTPS served, the certificate watcher is off and its event not observed', async () => {
    const plain = await startSandbox({ hostRoot: hostRoot.dir });
    try {
      const types = (await plain.call('GET', '/notifications/event-types')).body.eventTypes;
      expect(types.find((t: { eventType: string }) => t.eventType === 'certificate_expiring').observed).toBe(
        false,
      );
      const status = (await plain.call('GET', '/health')).body.watchers.find(
        (w: { name: string }) => w.name === 'certificate',
      );
      expect(status).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('no HTTPS') });
    } finally {
      await plain.close();
    }
  });
});
