import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A local HTTP receiver on 127.0.0.1 for sender tests. Paths choose the answer:
 * `/status/<code>` answers that code, `/redirect` answers 302 to `/status/200`, `/hang` never answers,
 * anything else answers 200.
 */
export async function startHttpReceiver() {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (path === '/hang') return;
      if (path === '/redirect') {
        res.writeHead(302, { Location: '/status/200' }).end();
        return;
      }
      const code = /^\/status\/(\d{3})$/.exec(path);
      res.writeHead(code ? Number(code[1]) : 200, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
