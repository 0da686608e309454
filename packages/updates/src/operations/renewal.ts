/**
 * One renewal cycle (the server's `certificate-renewal` watcher): nothing while the certificate is
 * valid beyond the window; otherwise an ACME order, the new certificate installed (written
 * atomically and served without a restart, by the `install` port), and the observation: no
 * condition on success, `certificate_renewal_failed` with the problem detail on a refusal.
 */
import type { Clock } from '@appliance/common';
import type { Observation } from '@appliance/watchers';
import { RENEWAL_DAYS, renewalDue, renewalFailedCondition } from '../core/renewal.ts';
import { type ChallengeResponder, issueCertificate } from '../node/acme.ts';

export interface RenewalPorts {
  clock: Clock;
  directoryUrl: string;
  domain: string;
  email: string | null;
  ca: Buffer | null;
  /** The account key (created and stored on first use). */
  accountKey(): Promise<Buffer>;
  /** The served certificate's expiry, or null when there is none. */
  currentNotAfter(): Promise<string | null>;
  challenges: ChallengeResponder;
  /** Writes the certificate and key atomically and makes the listener serve them. */
  install(cert: string, key: string): Promise<void>;
  /** After a successful install (the expiry watcher re-reads the certificate). */
  installed?(): Promise<void>;
}

export interface RenewalResult {
  observation: Observation;
  renewed: { notAfter: string } | null;
}

export async function runRenewal(ports: RenewalPorts, days = RENEWAL_DAYS): Promise<RenewalResult> {
  const notAfter = await ports.currentNotAfter();
  const note = (message: string) => [{ subject: ports.domain, message }];
  if (!renewalDue(notAfter, ports.clock.now(), days))
    return {
      observation: {
        conditions: [],
        notes: note(`valid until ${notAfter}; renewal from ${days} days before`),
      },
      renewed: null,
    };
  let issued: Awaited<ReturnType<typeof issueCertificate>>;
  try {
    issued = await issueCertificate({
      directoryUrl: ports.directoryUrl,
      accountKey: await ports.accountKey(),
      domain: ports.domain,
      email: ports.email,
      ca: ports.ca,
      challenges: ports.challenges,
    });
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return {
      observation: {
        conditions: [renewalFailedCondition({ domain: ports.domain, directory: ports.directoryUrl, detail })],
      },
      renewed: null,
    };
  }
  await ports.install(issued.cert, issued.key);
  await ports.installed?.();
  return {
    observation: { conditions: [], notes: note(`renewed, valid until ${issued.notAfter}`) },
    renewed: { notAfter: issued.notAfter },
  };
}
