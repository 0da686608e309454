/**
 * `certificate_expiring`: the service's TLS certificate (the configured one, else the one it
 * generated under `<etc>/tls`), `certificateDays` days before it expires.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CERTIFICATE_KEY_PREFIX, evaluateCertificate } from '../core/certificate.ts';
import { readCertificate } from '../node/certificate.ts';
import type { WatcherDefinition } from '../runner.ts';
import type { CertificatePorts } from './ports.ts';

/** The certificate served: `configured` (a path), else `<etcDir>/tls/cert.pem` when it exists, or null. */
export function servedCertificate(
  configured: string | null,
  etcDir: string,
): { real: string; generated: boolean } | null {
  if (configured) return { real: configured, generated: false };
  const generated = path.join(etcDir, 'tls', 'cert.pem');
  return fs.existsSync(generated) ? { real: generated, generated: true } : null;
}

export function certificateWatcher(ports: CertificatePorts): WatcherDefinition {
  return {
    name: 'certificate',
    events: ['certificate_expiring'],
    owns: [CERTIFICATE_KEY_PREFIX],
    intervalSeconds: () => ports.settings().intervals.certificate,
    enabled: () => ports.watchesCertificate(),
    disabledReason: 'the service serves no HTTPS and has no certificate configured',
    async observe() {
      const file = ports.certificateFile();
      const cert = file ? await readCertificate(file.real) : null;
      return evaluateCertificate(
        cert && file
          ? {
              file: ports.paths.logical(file.real) ?? file.real,
              subject: cert.subject,
              notAfter: cert.notAfter,
              generated: file.generated,
            }
          : null,
        ports.clock.now(),
        ports.settings().certificateDays,
      );
    },
  };
}
