/** `certificate_expiring`: the service's TLS certificate, a number of days before it expires. */
import type { Condition, Note, Observation } from './model.ts';

export interface CertificateFacts {
  /** Where it is (logical path). */
  file: string;
  subject: string;
  /** RFC 3339 UTC. */
  notAfter: string;
  /** The service generated it (self-signed) rather than being given it. */
  generated: boolean;
}

export const CERTIFICATE_KEY_PREFIX = 'certificate:';
const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

/**
 * The time left as a person counts it: whole days rounded to the nearest (9 d 23 h is "10 days",
 * 9 d 11 h "9 days"); under two days, hours rounded to the nearest ("1 day" would hide that it is
 * tomorrow morning); under an hour, "less than an hour".
 */
export function timeLeft(ms: number): string {
  if (ms >= 2 * DAY - HOUR / 2) {
    const days = Math.round(ms / DAY);
    return `${days} days`;
  }
  const hours = Math.round(ms / HOUR);
  if (hours < 1) return 'less than an hour';
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

export function evaluateCertificate(cert: CertificateFacts | null, now: Date, warnDays: number): Observation {
  if (!cert) return { conditions: [], notes: [{ subject: 'TLS', message: 'no TLS certificate in use' }] };
  const left = Date.parse(cert.notAfter) - now.getTime();
  const date = cert.notAfter.slice(0, 10);
  const note: Note = { subject: cert.file, message: `${cert.subject}, valid until ${cert.notAfter}` };
  if (left > warnDays * DAY) return { conditions: [], notes: [note] };
  const todo = cert.generated
    ? `Delete ${cert.file} and its key (key.pem beside it) and restart the service: it generates a new certificate; clients that trust the old one (appliance --ca) need the new one.`
    : `Install a renewed certificate and key at ${cert.file} (the tlsCert and tlsKey of the configuration) and restart the service.`;
  const expired = left <= 0;
  const inWords = timeLeft(left);
  const value = expired ? 'expired' : `${inWords} left`;
  const condition: Condition = {
    key: `${CERTIFICATE_KEY_PREFIX}${cert.file}`,
    eventType: 'certificate_expiring',
    subject: `the TLS certificate ${cert.file}`,
    value,
    title: expired ? `The TLS certificate expired on ${date}` : `The TLS certificate expires in ${inWords}`,
    message: expired
      ? `The TLS certificate of this appliance (${cert.file}, ${cert.subject}) expired on ${cert.notAfter}: browsers and HTTPS clients refuse the connection. ${todo}`
      : `The TLS certificate of this appliance (${cert.file}, ${cert.subject}) expires on ${cert.notAfter}, in ${inWords} (warning ${warnDays} days before). ${todo}`,
  };
  return { conditions: [condition], notes: [note] };
}
