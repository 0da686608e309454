/**
 * A small Docker Engine API client over the Unix socket (node:http): the container list, one
 * container's inspect and the network list. Unreachable or slower than 10 s → 503 docker_unavailable.
 */
import http from 'node:http';
import { AppError } from '@appliance/common';

export interface EngineContainer {
  Id: string;
  State: string;
  Labels?: Record<string, string> | null;
  Ports?: { PrivatePort?: number; PublicPort?: number; Type?: string }[] | null;
}

export interface DockerEngine {
  containers(): Promise<EngineContainer[]>;
  /** `HostConfig.PortBindings` of a container; null when it vanished. */
  portBindings(id: string): Promise<Record<string, { HostIp?: string; HostPort?: string }[] | null> | null>;
  networks(): Promise<string[]>;
}

export const dockerUnavailable = () =>
  new AppError(
    503,
    'docker_unavailable',
    'The Docker Engine is not reachable; start Docker (systemctl start docker) and try again.',
  );

/** The socket path of a `unix://` DOCKER_HOST (default /var/run/docker.sock). */
export function engineSocket(dockerHost: string | undefined): string {
  if (!dockerHost) return '/var/run/docker.sock';
  if (dockerHost.startsWith('unix://')) return dockerHost.slice('unix://'.length);
  throw new AppError(501, 'not_configured', `Only a unix:// DOCKER_HOST is supported, not ${dockerHost}.`);
}

export function createDockerEngine(options: { socketPath: string; timeoutMs?: number }): DockerEngine {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const get = (urlPath: string): Promise<{ status: number; body: unknown }> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { socketPath: options.socketPath, path: urlPath, method: 'GET', timeout: timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
            } catch {
              reject(dockerUnavailable());
            }
          });
          res.on('error', () => reject(dockerUnavailable()));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => reject(dockerUnavailable()));
      req.end();
    });
  return {
    async containers() {
      const r = await get('/containers/json?all=1');
      if (r.status !== 200 || !Array.isArray(r.body)) throw dockerUnavailable();
      return r.body as EngineContainer[];
    },
    async portBindings(id) {
      const r = await get(`/containers/${encodeURIComponent(id)}/json`);
      if (r.status === 404) return null;
      if (r.status !== 200) throw dockerUnavailable();
      const hc = (r.body as { HostConfig?: { PortBindings?: unknown } }).HostConfig;
      return (hc?.PortBindings ?? {}) as Record<string, { HostIp?: string; HostPort?: string }[] | null>;
    },
    async networks() {
      const r = await get('/networks');
      if (r.status !== 200 || !Array.isArray(r.body)) throw dockerUnavailable();
      return (r.body as { Name: string }[]).map((n) => n.Name);
    },
  };
}

const ACTIVE = new Set(['running', 'restarting', 'paused']);

/**
 * Set 2 of 02 §6: active containers' published ports; other containers' configured host ports
 * (ranges expanded). Containers of a known stack (project + working dir) are covered by set 3.
 */
export async function containerPorts(
  engine: DockerEngine,
  knownStacks: ReadonlySet<string>,
): Promise<Set<number>> {
  const ports = new Set<number>();
  for (const c of await engine.containers()) {
    const labels = c.Labels ?? {};
    const project = labels['com.docker.compose.project'];
    const workdir = labels['com.docker.compose.project.working_dir'];
    if (project !== undefined && workdir !== undefined && knownStacks.has(`${project}\0${workdir}`)) continue;
    if (ACTIVE.has(c.State)) {
      for (const p of c.Ports ?? []) if (p.PublicPort) ports.add(p.PublicPort);
      continue;
    }
    const bindings = await engine.portBindings(c.Id);
    if (!bindings) continue;
    for (const list of Object.values(bindings)) {
      for (const b of list ?? []) {
        const hp = b.HostPort ?? '';
        const m = /^(\d+)(?:-(\d+))?$/.exec(hp);
        if (!m) continue;
        const from = Number(m[1]);
        const to = m[2] ? Number(m[2]) : from;
        for (let p = from; p <= to && p <= 65535; p++) if (p > 0) ports.add(p);
      }
    }
  }
  return ports;
}

/** The Engine named by DOCKER_HOST in `environ()`, read at each call (so a test may point it elsewhere). */
export function createLazyDockerEngine(
  environ: () => Readonly<Record<string, string | undefined>>,
): DockerEngine {
  const engine = () => createDockerEngine({ socketPath: engineSocket(environ()['DOCKER_HOST']) });
  return {
    containers: () => engine().containers(),
    portBindings: (id) => engine().portBindings(id),
    networks: () => engine().networks(),
  };
}
