/** The ports of the ACME renewal (`@appliance/updates`), wired to the server's context. */
import fs from 'node:fs';
import type NodeHttp from 'node:http';
import path from 'node:path';
import { writeFileAtomic } from '@appliance/common';
import { type ChallengeResponder, createAccountKey, type RenewalPorts } from '@appliance/updates';
import { readCertificate } from '@appliance/watchers';
import type { AppContext } from '../../context.ts';

type AcmeConfig = NonNullable<AppContext['config']['acme']>;

/** The files the HTTPS listener serves: the configured pair, else the generated one. */
export function servedFiles(ctx: AppContext): { cert: string; key: string } {
  const { tlsCert, tlsKey } = ctx.config;
  if (tlsCert && tlsKey) return { cert: tlsCert, key: tlsKey };
  const dir = path.join(ctx.paths.etcDir, 'tls');
  return { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
}

/** The HTTP-01 responder: `GET /.well-known/acme-challenge/<token>` from the tokens of a running order. */
export function challengeResponder(): ChallengeResponder & { server: NodeHttp.Server } {
  // node:http from Node's own loader, as server.ts does (no ESM facade at start)
  const http = process.getBuiltinModule('node:http') as typeof NodeHttp;
  const tokens = new Map<string, string>();
  const prefix = '/.well-known/acme-challenge/';
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    const answer =
      req.method === 'GET' && url.startsWith(prefix) ? tokens.get(url.slice(prefix.length)) : undefined;
    if (answer === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(answer);
  });
  return {
    server,
    set: (token, keyAuthorization) => tokens.set(token, keyAuthorization),
    remove: (token) => tokens.delete(token),
  };
}

export function renewalPorts(
  ctx: AppContext,
  acme: AcmeConfig,
  challenges: ChallengeResponder,
): RenewalPorts {
  const accountKeyFile = acme.accountKey ?? path.join(ctx.paths.etcDir, 'acme', 'account.pem');
  return {
    clock: ctx.clock,
    directoryUrl: acme.directory,
    domain: acme.domain,
    email: acme.email,
    ca: acme.caFile ? fs.readFileSync(acme.caFile) : null,
    challenges,
    async accountKey() {
      if (fs.existsSync(accountKeyFile)) return fs.readFileSync(accountKeyFile);
      const key = await createAccountKey();
      fs.mkdirSync(path.dirname(accountKeyFile), { recursive: true, mode: 0o700 });
      await writeFileAtomic(accountKeyFile, key, { mode: 0o600 });
      return key;
    },
    async currentNotAfter() {
      return (await readCertificate(servedFiles(ctx).cert))?.notAfter ?? null;
    },
    async install(cert, key) {
      const files = servedFiles(ctx);
      fs.mkdirSync(path.dirname(files.cert), { recursive: true, mode: 0o700 });
      // the key first: the listener reads the pair only when told to (reloadTls), after both
      await writeFileAtomic(files.key, key, { mode: 0o600 });
      await writeFileAtomic(files.cert, cert, { mode: 0o644 });
      ctx.hooks.reloadTls?.();
      ctx.logger.info('TLS certificate renewed over ACME', { domain: acme.domain, file: files.cert });
    },
    async installed() {
      // certificate_expiring reads the new certificate now, and clears
      if (ctx.watchers.names().includes('certificate')) await ctx.watchers.runOnce('certificate');
    },
  };
}
