/**
 * Certificate renewal over ACME (issue 38): with `[acme]` configured, the service answers HTTP-01
 * challenges itself (a listener on `acme.httpListen`, port 80 by default) and the
 * `certificate-renewal` watcher renews the served certificate from 30 days before it expires,
 * writes it atomically and serves it without a restart; `certificate_renewal_failed` carries the
 * ACME server's problem detail. The order and the decision are @appliance/updates'.
 */
import { renewalWatcher, runRenewal, startChallengeServer } from '@appliance/updates';
import type { AppContext } from '../../context.ts';
import type { Feature } from '../feature.ts';
import { renewalPorts } from './deps.ts';

export { RENEWAL_INTERVAL_S } from '@appliance/updates';

export const acmeConfigured = (ctx: AppContext): boolean => (ctx.config.acme ?? null) !== null;

export const feature: Feature = {
  name: 'certificates',
  raises: [{ eventType: 'certificate_renewal_failed', when: acmeConfigured }],
  routes: [],
  async start(ctx) {
    const acme = ctx.config.acme;
    if (!acme) return;
    const responder = await startChallengeServer(acme.httpListen);
    ctx.watchers.register(renewalWatcher(() => runRenewal(renewalPorts(ctx, acme, responder))));
    return () => responder.close();
  },
};
