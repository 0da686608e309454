/**
 * login_failure_burst (08 §3.3) reaches a routed webhook and SMTP receiver once when password
 * failures cross the lock-out threshold, naming the account and the source address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf, labHostRoot, type Receivers, routedReceivers } from '../../../test-support/watchers.ts';

describe('login_failure_burst', () => {
  let s: Sandbox;
  let rx: Receivers;
  let hostRoot: ReturnType<typeof labHostRoot>;
  beforeAll(async () => {
    hostRoot = labHostRoot();
    s = await startSandbox({ hostRoot: hostRoot.dir });
    rx = await routedReceivers(s, ['login_failure_burst']);
  });
  afterAll(async () => {
    await s?.close();
    await rx?.close();
    hostRoot?.remove();
  });

  it('five wrong passwords in a row: one notification naming the account and the address', async () => {
    const wrong = `Basic ${Buffer.from('admin:not the password').toString('base64')}`;
    for (let i = 0; i < 7; i++) {
      const r = await s.call(
        'POST',
        '/tokens',
        { name: 'x', role: 'admin' },
        { token: null, headers: { authorization: wrong } },
      );
      expect([401, 429]).toContain(r.status);
    }
    const { webhook, mail } = await rx.waitFor('login_failure_burst');
    expect(webhook[0]).toMatchObject({
      title: 'Repeated failed logins',
      message: 'Five failed logins in a row for admin from 127.0.0.1.',
    });
    expect(mail[0]!.subject).toBe('[critical] Repeated failed logins');
    expect(alertsOf(s, 'login_failure_burst')).toHaveLength(1);
  });
});
