import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface LocalRegistry {
  /** `127.0.0.1:PORT`: the registry part of image references pushed to it. */
  host: string;
  dir: string;
  stop(): Promise<void>;
}

/** A TCP port on 127.0.0.1 that is free now. */
export async function freeLoopbackPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * Debian's `docker-registry` (distribution 2.8) on 127.0.0.1, storing into a temp directory: the
 * registry of the container update tests. Docker treats 127.0.0.0/8 registries as insecure (plain
 * HTTP) without configuration. Stop it in teardown.
 */
export async function startLocalRegistry(): Promise<LocalRegistry> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'appliance-registry-'));
  const port = await freeLoopbackPort();
  const config = path.join(dir, 'config.yml');
  await fs.writeFile(
    config,
    `version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: ${path.join(dir, 'data')}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:${port}
  secret: lab-registry-secret
`,
  );
  const log = await fs.open(path.join(dir, 'registry.log'), 'a');
  const child: ChildProcess = spawn('docker-registry', ['serve', config], {
    stdio: ['ignore', log.fd, log.fd],
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const end = Date.now() + 10_000;
      while (!exited && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      if (!exited) child.kill('SIGKILL');
    }
    await log.close().catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  };
  const end = Date.now() + 15_000;
  for (;;) {
    if (exited) {
      const text = await fs.readFile(path.join(dir, 'registry.log'), 'utf8').catch(() => '');
      await stop();
      throw new Error(`docker-registry exited: ${text.trim()}`);
    }
    const up = await fetch(`http://127.0.0.1:${port}/v2/`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (Date.now() > end) {
      await stop();
      throw new Error('docker-registry did not answer within 15 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host: `127.0.0.1:${port}`, dir, stop };
}
