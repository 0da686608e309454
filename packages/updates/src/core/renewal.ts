/**
 * Certificate renewal over ACME: due from `days` (30) before expiry; `certificate_renewal_failed`
 * with the ACME server's own problem detail while renewals fail (cleared by the next success).
 */
import type { Condition } from '@appliance/watchers';

export const RENEWAL_DAYS = 30;
export const RENEWAL_KEY = 'acme:renewal';
const DAY = 24 * 3600 * 1000;

/** Whether a certificate valid until `notAfter` (null: none yet) is renewed now. */
export function renewalDue(notAfter: string | null, now: Date, days = RENEWAL_DAYS): boolean {
  return notAfter === null || Date.parse(notAfter) - now.getTime() <= days * DAY;
}

export function renewalFailedCondition(input: {
  domain: string;
  directory: string;
  detail: string;
}): Condition {
  return {
    key: RENEWAL_KEY,
    eventType: 'certificate_renewal_failed',
    subject: `the TLS certificate for ${input.domain}`,
    value: input.detail,
    title: `Renewing the TLS certificate for ${input.domain} failed`,
    message: `The ACME server ${input.directory} refused to renew the TLS certificate for ${input.domain}: ${input.detail}. The service keeps serving the current certificate and tries again at the next check; make ${input.domain} reach this appliance on port 80 (HTTP-01), or fix what the server names.`,
  };
}
