/** Where apt and the served certificate are on this host (the service's configuration given). */
import fs from 'node:fs';
import path from 'node:path';
import type { CommandRunner } from '@appliance/common';
import type { AptDeps } from '../ports.ts';
import type { CertificateFiles } from './certificate-files.ts';

/** Whether apt exists where the service looks for its tools (a Debian box): the update events can come. */
export function aptOnPath(toolPath: string): boolean {
  return toolPath.split(':').some((dir) => fs.existsSync(path.join(dir, 'apt-get')));
}

/**
 * apt's ports. On the real host booted with systemd, apt runs in a transient unit (outside the
 * service's sandbox and control group: see `AptDeps.transientUnit`); in a sandbox as a child.
 */
export function hostAptDeps(o: {
  runner: CommandRunner;
  aptConfig: string | null;
  /** The service runs under a root prefix (not the machine's own apt). */
  sandbox: boolean;
  /** Where systemd says it booted the machine (default `/run/systemd/system`). */
  systemdDir?: string;
}): AptDeps {
  return {
    runner: o.runner,
    aptConfig: o.aptConfig,
    transientUnit: !o.sandbox && fs.existsSync(o.systemdDir ?? '/run/systemd/system'),
  };
}

/** The files the HTTPS listener serves: the configured pair, else the generated one under `etcDir/tls`. */
export function servedFiles(tlsCert: string | null, tlsKey: string | null, etcDir: string): CertificateFiles {
  if (tlsCert && tlsKey) return { cert: tlsCert, key: tlsKey };
  const dir = path.join(etcDir, 'tls');
  return { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
}

/** The ACME account key: the configured file, else `etcDir/acme/account.pem`. */
export const accountKeyFile = (configured: string | null | undefined, etcDir: string): string =>
  configured ?? path.join(etcDir, 'acme', 'account.pem');
