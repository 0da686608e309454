/**
 * `certificate_expiring`: the service's TLS certificate (the configured `tlsCert`, else the one it
 * generated under /etc/appliance/tls), `certificateDays` days before it expires.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CERTIFICATE_KEY_PREFIX, evaluateCertificate, readCertificate } from '@appliance/watchers';
import { isLoopback } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { WatcherDefinition } from '../../services/watchers.ts';
import { readWatcherSettings } from './settings.ts';

/** The certificate the service serves (or would serve) HTTPS with, or null. */
export function certificateFile(ctx: AppContext): { real: string; generated: boolean } | null {
  if (ctx.config.tlsCert) return { real: ctx.config.tlsCert, generated: false };
  const generated = path.join(ctx.paths.etcDir, 'tls', 'cert.pem');
  return fs.existsSync(generated) ? { real: generated, generated: true } : null;
}

/** Whether this installation has a certificate to watch: a configured one, or an HTTPS listener. */
export function watchesCertificate(ctx: AppContext): boolean {
  const { config } = ctx;
  const https =
    config.listen !== null &&
    (config.tls === 'on' || (config.tls === 'auto' && !isLoopback(config.listen.host)));
  return config.tlsCert !== null || https;
}

export function certificateWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'certificate',
    events: ['certificate_expiring'],
    owns: [CERTIFICATE_KEY_PREFIX],
    intervalSeconds: () => readWatcherSettings(ctx.db).intervals.certificate,
    enabled: () => watchesCertificate(ctx),
    disabledReason: 'the service serves no HTTPS and has no certificate configured',
    async observe() {
      const file = certificateFile(ctx);
      const cert = file ? await readCertificate(file.real) : null;
      return evaluateCertificate(
        cert && file
          ? {
              file: ctx.paths.logical(file.real) ?? file.real,
              subject: cert.subject,
              notAfter: cert.notAfter,
              generated: file.generated,
            }
          : null,
        ctx.clock.now(),
        readWatcherSettings(ctx.db).certificateDays,
      );
    },
  };
}
