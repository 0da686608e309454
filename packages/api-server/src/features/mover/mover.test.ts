/** The mover's routes without an array: status, refusals that write nothing, the settings. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

describe('mover routes', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox({});
  });
  afterAll(async () => {
    await s.close();
  });

  it('GET /mover without a cache: not configured, never ran, no next run', async () => {
    const r = await s.call('GET', '/mover');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      configured: false,
      shares: [],
      settings: { enabled: true, time: '02:00', verify: 'size-mtime' },
      running: null,
      lastRun: null,
      nextRun: null,
    });
  });

  it('POST /mover/run without a cache: 409 no_cache, nothing written; a bad body: 400', async () => {
    const before = s.dumpDatabase();
    const r = await s.call('POST', '/mover/run');
    expect([r.status, r.body.code]).toEqual([409, 'no_cache']);
    expect(r.body.message).toMatch(/no cache disk/);
    const bad = await s.call('POST', '/mover/run', { verify: 'md5' });
    expect([bad.status, bad.body.code]).toEqual([400, 'bad_request']);
    const extra = await s.call('POST', '/mover/run', { now: true });
    expect(extra.status).toBe(400);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('PUT /settings/mover validates, saves, audits; GET /mover shows it', async () => {
    const before = s.dumpDatabase();
    for (const body of [
      { enabled: true, time: '25:00', verify: 'size-mtime' },
      { enabled: true, time: '02:00', verify: 'crc' },
      { enabled: 'yes', time: '02:00', verify: 'sha256' },
      { enabled: true, time: '02:00' },
    ]) {
      const r = await s.call('PUT', '/settings/mover', body);
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, 'bad_request']);
    }
    expect(s.dumpDatabase()).toBe(before);
    const ok = await s.call('PUT', '/settings/mover', { enabled: false, time: '01:30', verify: 'sha256' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ enabled: false, time: '01:30', verify: 'sha256' });
    expect((await s.call('GET', '/settings/mover')).body).toEqual(ok.body);
    expect((await s.call('GET', '/mover')).body.settings).toEqual(ok.body);
    const audit = await s.call('GET', '/audit?limit=5');
    expect(JSON.stringify(audit.body)).toContain('settings.mover');
  });
});
