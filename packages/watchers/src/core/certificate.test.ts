import { describe, expect, it } from 'vitest';
import { evaluateCertificate, timeLeft } from './certificate.ts';

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

  it('9 days 23 hours before: "10 days", as a person rounds (issue 32), not the floor "9 days"', () => {
    const [c] = evaluateCertificate(cert('2026-12-05T11:00:00.000Z'), now, 30).conditions;
    expect(c).toMatchObject({ value: '10 days left', title: 'The TLS certificate expires in 10 days' });
    expect(c!.message).toContain('expires on 2026-12-05T11:00:00.000Z, in 10 days (warning 30 days before)');
  });

  it('the last two days in hours', () => {
    const [c] = evaluateCertificate(cert('2026-11-26T23:00:00.000Z'), now, 30).conditions;
    expect(c).toMatchObject({ value: '35 hours left', title: 'The TLS certificate expires in 35 hours' });
  });

  it('rounds days to the nearest, hours under two days, and says "less than an hour"', () => {
    const H = 3_600_000;
    expect(timeLeft(9 * 24 * H + 23 * H)).toBe('10 days');
    expect(timeLeft(9 * 24 * H + 11 * H)).toBe('9 days');
    expect(timeLeft(9 * 24 * H + 12 * H)).toBe('10 days');
    expect(timeLeft(48 * H)).toBe('2 days');
    expect(timeLeft(47 * H + 40 * 60_000)).toBe('2 days');
    expect(timeLeft(47 * H)).toBe('47 hours');
    expect(timeLeft(24 * H)).toBe('24 hours');
    expect(timeLeft(H)).toBe('1 hour');
    expect(timeLeft(20 * 60_000)).toBe('less than an hour');
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
