/**
 * The renewal's ports over files (issue 38): the ACME account key (created 0600 on first use),
 * the served certificate's expiry, and the new pair written atomically (the key first) before the
 * listener is told to serve it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Clock, writeFileAtomic } from '@appliance/common';
import { readCertificate } from '@appliance/watchers';
import type { RenewalPorts } from '../operations/renewal.ts';
import { type ChallengeResponder, createAccountKey } from './acme.ts';

export interface CertificateFiles {
  cert: string;
  key: string;
}

export interface FileRenewalOptions {
  clock: Clock;
  directoryUrl: string;
  domain: string;
  email: string | null;
  /** Extra CA certificates for the directory's TLS (a file), or null. */
  caFile: string | null;
  /** The account key's file (created when absent). */
  accountKeyFile: string;
  /** The pair the HTTPS listener serves. */
  files: CertificateFiles;
  challenges: ChallengeResponder;
  /** Makes the listener read the pair again (after both files are written). */
  reload?: () => void;
  log?: (message: string, fields?: Record<string, unknown>) => void;
  /** After a successful install (the expiry watcher re-reads the certificate). */
  installed?: () => Promise<void>;
}

export function fileRenewalPorts(options: FileRenewalOptions): RenewalPorts {
  const { files } = options;
  return {
    clock: options.clock,
    directoryUrl: options.directoryUrl,
    domain: options.domain,
    email: options.email,
    ca: options.caFile ? fs.readFileSync(options.caFile) : null,
    challenges: options.challenges,
    async accountKey() {
      if (fs.existsSync(options.accountKeyFile)) return fs.readFileSync(options.accountKeyFile);
      const key = await createAccountKey();
      fs.mkdirSync(path.dirname(options.accountKeyFile), { recursive: true, mode: 0o700 });
      await writeFileAtomic(options.accountKeyFile, key, { mode: 0o600 });
      return key;
    },
    async currentNotAfter() {
      return (await readCertificate(files.cert))?.notAfter ?? null;
    },
    async install(cert, key) {
      fs.mkdirSync(path.dirname(files.cert), { recursive: true, mode: 0o700 });
      // the key first: the listener reads the pair only when told to (reload), after both
      await writeFileAtomic(files.key, key, { mode: 0o600 });
      await writeFileAtomic(files.cert, cert, { mode: 0o644 });
      options.reload?.();
      options.log?.('TLS certificate renewed over ACME', { domain: options.domain, file: files.cert });
    },
    ...(options.installed ? { installed: options.installed } : {}),
  };
}
