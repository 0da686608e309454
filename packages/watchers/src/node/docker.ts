/**
 * The Docker Engine API over its Unix socket (node:http), as the container watchers need it: the
 * stacks' containers with Docker's health status, one container's health log and image, an image's
 * repository digests, and the digest a registry holds for a reference (`GET /distribution/…`: the
 * daemon asks the registry, with its own credentials and insecure-registry settings).
 */
import http from 'node:http';
import type { ContainerFacts } from '../core/containers.ts';

export interface DockerProbe {
  /** Containers of compose projects (all states), with health from their status. */
  composeContainers(): Promise<Array<ContainerFacts & { id: string }>>;
  /** A container's health log and image (null when it vanished). */
  inspectContainer(id: string): Promise<{
    image: string;
    reference: string;
    failingStreak: number | null;
    lastOutput: string | null;
  } | null>;
  /** An image's `RepoDigests` (null when the image is gone). */
  repoDigests(image: string): Promise<string[] | null>;
  /** The registry's digest for a reference; throws with the daemon's message when it cannot say. */
  registryDigest(reference: string): Promise<string>;
}

export class DockerError extends Error {
  override name = 'DockerError';
}

type Json = Record<string, unknown>;

export function createDockerProbe(options: { socketPath: string; timeoutMs?: number }): DockerProbe {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const get = (urlPath: string, timeout = timeoutMs): Promise<{ status: number; body: unknown }> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { socketPath: options.socketPath, path: urlPath, method: 'GET', timeout },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = text ? JSON.parse(text) : null;
            } catch {
              // plain-text error bodies stay text
            }
            resolve({ status: res.statusCode ?? 0, body });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new DockerError(`the Docker Engine did not answer ${urlPath} in time`)),
      );
      req.on('error', (e) =>
        reject(
          e instanceof DockerError
            ? e
            : new DockerError(
                `the Docker Engine is not reachable at ${options.socketPath} (${(e as NodeJS.ErrnoException).code ?? e.message})`,
              ),
        ),
      );
      req.end();
    });
  const message = (body: unknown) =>
    typeof body === 'object' && body !== null && typeof (body as Json)['message'] === 'string'
      ? ((body as Json)['message'] as string)
      : String(body ?? '');

  return {
    async composeContainers() {
      const filters = encodeURIComponent(JSON.stringify({ label: ['com.docker.compose.project'] }));
      const r = await get(`/containers/json?all=1&filters=${filters}`);
      if (r.status !== 200 || !Array.isArray(r.body))
        throw new DockerError(
          `the Docker Engine answered ${r.status} to the container list: ${message(r.body)}`,
        );
      return (r.body as Json[]).map((c) => {
        const labels = (c['Labels'] ?? {}) as Record<string, string>;
        const status = String(c['Status'] ?? '');
        const health = /\(unhealthy\)/.test(status)
          ? 'unhealthy'
          : /\(healthy\)/.test(status)
            ? 'healthy'
            : /\(health: starting\)/.test(status)
              ? 'starting'
              : null;
        return {
          id: String(c['Id']),
          name: String((c['Names'] as string[] | undefined)?.[0] ?? c['Id']).replace(/^\//, ''),
          stack: labels['com.docker.compose.project'] ?? '',
          service: labels['com.docker.compose.service'] ?? '',
          health,
        };
      });
    },
    async inspectContainer(id) {
      const r = await get(`/containers/${encodeURIComponent(id)}/json`);
      if (r.status === 404) return null;
      if (r.status !== 200)
        throw new DockerError(
          `the Docker Engine answered ${r.status} for container ${id}: ${message(r.body)}`,
        );
      const b = r.body as Json;
      const health = ((b['State'] as Json | undefined)?.['Health'] ?? null) as Json | null;
      const log = (health?.['Log'] ?? []) as Array<{ Output?: string }>;
      return {
        image: String(b['Image'] ?? ''),
        reference: String((b['Config'] as Json | undefined)?.['Image'] ?? ''),
        failingStreak:
          typeof health?.['FailingStreak'] === 'number' ? (health['FailingStreak'] as number) : null,
        lastOutput: log.length > 0 ? (log[log.length - 1]?.Output ?? null) : null,
      };
    },
    async repoDigests(image) {
      const r = await get(`/images/${encodeURIComponent(image)}/json`);
      if (r.status === 404) return null;
      if (r.status !== 200)
        throw new DockerError(
          `the Docker Engine answered ${r.status} for image ${image}: ${message(r.body)}`,
        );
      return ((r.body as Json)['RepoDigests'] as string[] | undefined) ?? [];
    },
    async registryDigest(reference) {
      const r = await get(`/distribution/${encodeURIComponent(reference)}/json`, Math.max(timeoutMs, 30_000));
      const digest = ((r.body as Json | null)?.['Descriptor'] as Json | undefined)?.['digest'];
      if (r.status !== 200 || typeof digest !== 'string')
        throw new DockerError(
          `the registry of ${reference} did not answer (${r.status}: ${message(r.body).trim()})`,
        );
      return digest;
    },
  };
}
