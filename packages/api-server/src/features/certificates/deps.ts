/** The ports of the ACME renewal (`@appliance/updates`), wired to the server's context. */
import {
  accountKeyFile,
  type ChallengeResponder,
  fileRenewalPorts,
  type RenewalPorts,
  servedFiles,
} from '@appliance/updates';
import type { AppContext } from '../../context.ts';

type AcmeConfig = NonNullable<AppContext['config']['acme']>;

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
    accountKeyFile: accountKeyFile(acme.accountKey, ctx.paths.etcDir),
    files: servedFiles(ctx.config.tlsCert, ctx.config.tlsKey, ctx.paths.etcDir),
    challenges,
    reload: () => ctx.hooks.reloadTls?.(),
    log: (message, fields) => ctx.logger.info(message, fields),
    async installed() {
      // certificate_expiring reads the new certificate now, and clears
      if (ctx.watchers.names().includes('certificate')) await ctx.watchers.runOnce('certificate');
    },
  });
}
