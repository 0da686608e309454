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
const DAY = 24 * 3600 * 1000;

export function evaluateCertificate(cert: CertificateFacts | null, now: Date, warnDays: number): Observation {
  if (!cert) return { conditions: [], notes: [{ subject: 'TLS', message: 'no TLS certificate in use' }] };
  const left = Date.parse(cert.notAfter) - now.getTime();
  const days = Math.floor(left / DAY);
  const date = cert.notAfter.slice(0, 10);
  const note: Note = { subject: cert.file, message: `${cert.subject}, valid until ${cert.notAfter}` };
  if (left > warnDays * DAY) return { conditions: [], notes: [note] };
  const todo = cert.generated
    ? `Delete ${cert.file} and its key (key.pem beside it) and restart the service: it generates a new certificate; clients that trust the old one (appliance --ca) need the new one.`
    : `Install a renewed certificate and key at ${cert.file} (the tlsCert and tlsKey of the configuration) and restart the service.`;
  const expired = left <= 0;
  const value = expired ? 'expired' : `${days} day${days === 1 ? '' : 's'} left`;
  const condition: Condition = {
    key: `${CERTIFICATE_KEY_PREFIX}${cert.file}`,
    eventType: 'certificate_expiring',
    subject: `the TLS certificate ${cert.file}`,
    value,
    title: expired
      ? `The TLS certificate expired on ${date}`
      : `The TLS certificate expires in ${value.replace(' left', '')}`,
    message: expired
      ? `The TLS certificate of this appliance (${cert.file}, ${cert.subject}) expired on ${cert.notAfter}: browsers and HTTPS clients refuse the connection. ${todo}`
      : `The TLS certificate of this appliance (${cert.file}, ${cert.subject}) expires on ${cert.notAfter}, in ${days} day${days === 1 ? '' : 's'} (warning ${warnDays} days before). ${todo}`,
  };
  return { conditions: [condition], notes: [note] };
}
