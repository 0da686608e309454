import http from 'node:http';

export class SocketUnavailable extends Error {
  override name = 'SocketUnavailable';
}

export interface SocketResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json(): unknown;
}

/** One HTTP request over the service's Unix socket (the caller acts as the local administrator). */
export function socketRequest(
  socketPath: string,
  method: string,
  path: string,
  body?: unknown,
  onResponse?: (res: http.IncomingMessage) => Promise<void>,
): Promise<SocketResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        socketPath,
        method,
        path: `/api/v1${path}`,
        headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
      },
      (res) => {
        if (onResponse && (res.statusCode ?? 500) < 300) {
          onResponse(res).then(
            () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.alloc(0),
                json: () => null,
              }),
            reject,
          );
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const buf = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: buf,
            json: () => JSON.parse(buf.toString('utf8')),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (['ENOENT', 'ECONNREFUSED', 'EACCES', 'ENOTSOCK', 'EPERM'].includes(err.code ?? '')) {
        reject(
          new SocketUnavailable(
            `Cannot reach the appliance service at ${socketPath} (${err.code}). Is it running, and may you open its socket?`,
          ),
        );
      } else reject(err);
    });
    if (payload) req.write(payload);
    req.end();
  });
}
