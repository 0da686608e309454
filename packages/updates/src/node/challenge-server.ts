/**
 * The HTTP-01 responder (issue 38): `GET /.well-known/acme-challenge/<token>` answered from the
 * tokens of a running order, on a listener of its own (port 80 by default); everything else 404.
 */
import type NodeHttp from 'node:http';
import type { ChallengeResponder } from './acme.ts';

export interface ChallengeServer extends ChallengeResponder {
  server: NodeHttp.Server;
  /** Ends the listener and its connections. */
  close(): Promise<void>;
}

export function challengeResponder(): ChallengeServer {
  // node:http from Node's own loader (no ESM facade on the service's start path)
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts the responder on `listen`; rejects when the port cannot be bound. */
export async function startChallengeServer(listen: { host: string; port: number }): Promise<ChallengeServer> {
  const responder = challengeResponder();
  await new Promise<void>((resolve, reject) => {
    responder.server.once('error', reject);
    responder.server.listen(listen.port, listen.host, () => resolve());
  });
  return responder;
}
