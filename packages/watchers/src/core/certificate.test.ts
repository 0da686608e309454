import { describe, expect, it } from 'vitest';
import { evaluateCertificate } from './certificate.ts';

const now = new Date('2026-11-25T12:00:00.000Z');
const cert = (notAfter: string, generated = false) => ({
  file: '/etc/appliance/tls/cert.pem',
  subject: 'CN=appliance',
  notAfter,
  generated,
});

describe('evaluateCertificate', () => {
  it('nothing until the warning window; a note with the validity', () => {
    const o = evaluateCertificate(cert('2027-01-01T00:00:00.000Z'), now, 30);
    expect(o.conditions).toEqual([]);
    expect(o.notes).toEqual([
      {
        subject: '/etc/appliance/tls/cert.pem',
        message: 'CN=appliance, valid until 2027-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('10 days before: the date, the days left, and how to renew a configured certificate', () => {
    const [c] = evaluateCertificate(cert('2026-12-05T12:00:00.000Z'), now, 30).conditions;
    expect(c).toMatchObject({
      key: 'certificate:/etc/appliance/tls/cert.pem',
      eventType: 'certificate_expiring',
      value: '10 days left',
      title: 'The TLS certificate expires in 10 days',
    });
    expect(c!.message).toContain('expires on 2026-12-05T12:00:00.000Z, in 10 days (warning 30 days before)');
    expect(c!.message).toContain('Install a renewed certificate');
  });

  it('expired, and the way to get a new generated one', () => {
    const [c] = evaluateCertificate(cert('2026-11-01T00:00:00.000Z', true), now, 30).conditions;
    expect(c).toMatchObject({ value: 'expired', title: 'The TLS certificate expired on 2026-11-01' });
    expect(c!.message).toContain('restart the service: it generates a new certificate');
  });

  it('no certificate in use: nothing held', () => {
    expect(evaluateCertificate(null, now, 30).conditions).toEqual([]);
  });
});
