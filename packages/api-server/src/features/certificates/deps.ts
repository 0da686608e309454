/** The ports of the ACME renewal (`@appliance/updates`), wired to the server's context. */
import path from 'node:path';
import { type ChallengeResponder, fileRenewalPorts, type RenewalPorts } from '@appliance/updates';
import type { AppContext } from '../../context.ts';

type AcmeConfig = NonNullable<AppContext['config']['acme']>;

/** The files the HTTPS listener serves: the configured pair, else the generated one. */
export function servedFiles(ctx: AppContext): { cert: string; key: string } {
  const { tlsCert, tlsKey } = ctx.config;
  if (tlsCert && tlsKey) return { cert: tlsCert, key: tlsKey };
  const dir = path.join(ctx.paths.etcDir, 'tls');
  return { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
}

export function renewalPorts(
  ctx: AppContext,
  acme: AcmeConfig,
  challenges: ChallengeResponder,
): RenewalPorts {
  return fileRenewalPorts({
    clock: ctx.clock,
    directoryUrl: acme.directory,
    domain: acme.domain,
    email: acme.email,
    caFile: acme.caFile ?? null,
    accountKeyFile: acme.accountKey ?? path.join(ctx.paths.etcDir, 'acme', 'account.pem'),
    files: servedFiles(ctx),
    challenges,
    reload: () => ctx.hooks.reloadTls?.(),
    log: (message, fields) => ctx.logger.info(message, fields),
    async installed() {
      // certificate_expiring reads the new certificate now, and clears
      if (ctx.watchers.names().includes('certificate')) await ctx.watchers.runOnce('certificate');
    },
  });
}
