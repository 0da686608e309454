/**
 * Certificate renewal over ACME (issue 38): with `[acme]` configured, the service answers HTTP-01
 * challenges itself (a listener on `acme.httpListen`, port 80 by default) and the
 * `certificate-renewal` watcher renews the served certificate from 30 days before it expires,
 * writes it atomically and serves it without a restart; `certificate_renewal_failed` carries the
 * ACME server's problem detail. The order and the decision are @appliance/updates'.
 */
import { RENEWAL_KEY, runRenewal, startChallengeServer } from '@appliance/updates';
import type { AppContext } from '../../context.ts';
import type { Feature } from '../feature.ts';
import { renewalPorts } from './deps.ts';

/** Seconds between two renewal checks. */
export const RENEWAL_INTERVAL_S = 12 * 3600;

export const acmeConfigured = (ctx: AppContext): boolean => (ctx.config.acme ?? null) !== null;

export const feature: Feature = {
  name: 'certificates',
  raises: [{ eventType: 'certificate_renewal_failed', when: acmeConfigured }],
  routes: [],
  async start(ctx) {
    const acme = ctx.config.acme;
    if (!acme) return;
    const responder = await startChallengeServer(acme.httpListen);
    ctx.watchers.register({
      name: 'certificate-renewal',
      events: ['certificate_renewal_failed'],
      owns: [RENEWAL_KEY],
      intervalSeconds: () => RENEWAL_INTERVAL_S,
      observe: async () => (await runRenewal(renewalPorts(ctx, acme, responder))).observation,
    });
    return () => responder.close();
  },
};
