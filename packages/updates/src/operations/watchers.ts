/**
 * The watchers of this package for a `WatcherRunner` of `@appliance/watchers`: the reboot-required
 * facts read every five minutes, and the certificate renewal tried twice a day (it renews only from
 * 30 days before the expiry; a failure is raised once, with the ACME server's problem detail).
 */
import type { WatcherDefinition } from '@appliance/watchers';
import { evaluateReboot, REBOOT_KEY } from '../core/reboot.ts';
import { RENEWAL_KEY } from '../core/renewal.ts';
import { readRebootFacts } from '../node/reboot-facts.ts';
import type { RebootPaths } from '../ports.ts';
import type { RenewalResult } from './renewal.ts';

/** Seconds between two reboot-required cycles. */
export const REBOOT_INTERVAL_S = 300;
/** Seconds between two renewal checks. */
export const RENEWAL_INTERVAL_S = 12 * 3600;

/** `reboot`: `reboot_required` while `/run/reboot-required` exists or an older kernel runs. */
export function rebootWatcher(paths: () => RebootPaths): WatcherDefinition {
  return {
    name: 'reboot',
    events: ['reboot_required'],
    owns: [REBOOT_KEY],
    intervalSeconds: () => REBOOT_INTERVAL_S,
    observe: async () => evaluateReboot(await readRebootFacts(paths())),
  };
}

/** `certificate-renewal`: each cycle runs the renewal (`runRenewal` over its ports). */
export function renewalWatcher(renew: () => Promise<RenewalResult>): WatcherDefinition {
  return {
    name: 'certificate-renewal',
    events: ['certificate_renewal_failed'],
    owns: [RENEWAL_KEY],
    intervalSeconds: () => RENEWAL_INTERVAL_S,
    observe: async () => (await renew()).observation,
  };
}
