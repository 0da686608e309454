/**
 * The Docker Engine API over its Unix socket (node:http) for the stack operations: the compose
 * containers (one list call), the images' digests (one call) and a container's logs, streamed and
 * demultiplexed. Unreachable → 503 docker_unavailable.
 */
import http from 'node:http';
import { dockerUnavailable } from '../../node/docker-engine.ts';
import { LogDemuxer } from '../core/log-demux.ts';
import type { EngineContainerSummary, LogLine, LogsOptions, StackEngine } from '../ports.ts';

interface RawContainer {
  Id: string;
  Names?: string[];
  Image?: string;
  ImageID?: string;
  State?: string;
  Status?: string;
  Labels?: Record<string, string> | null;
  Ports?: { IP?: string; PrivatePort?: number; PublicPort?: number; Type?: string }[] | null;
}

const PROJECT = 'com.docker.compose.project';
const SERVICE = 'com.docker.compose.service';

export function createStackEngine(options: { socketPath: string; timeoutMs?: number }): StackEngine {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const request = (urlPath: string, signal?: AbortSignal, stream = false, method = 'GET') =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(
        {
          socketPath: options.socketPath,
          path: urlPath,
          method,
          ...(stream ? {} : { timeout: timeoutMs }),
          ...(signal ? { signal } : {}),
        },
        resolve,
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => reject((e as Error).name === 'AbortError' ? e : dockerUnavailable()));
      req.end();
    });
  const getJson = async (urlPath: string): Promise<{ status: number; body: unknown }> => {
    const res = await request(urlPath);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      return { status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null };
    } catch {
      throw dockerUnavailable();
    }
  };
  return {
    async containers(project) {
      const filters = JSON.stringify({ label: [project ? `${PROJECT}=${project}` : PROJECT] });
      const r = await getJson(`/containers/json?all=1&filters=${encodeURIComponent(filters)}`);
      if (r.status !== 200 || !Array.isArray(r.body)) throw dockerUnavailable();
      return (r.body as RawContainer[]).map(toSummary);
    },
    async imageDigests() {
      const r = await getJson('/images/json');
      if (r.status !== 200 || !Array.isArray(r.body)) throw dockerUnavailable();
      const out = new Map<string, string[]>();
      for (const i of r.body as { Id: string; RepoDigests?: string[] | null }[])
        out.set(i.Id, i.RepoDigests ?? []);
      return out;
    },
    async containerReference(id) {
      const r = await getJson(`/containers/${encodeURIComponent(id)}/json`);
      if (r.status === 404) return null;
      if (r.status !== 200) throw dockerUnavailable();
      return (r.body as { Config?: { Image?: string } }).Config?.Image ?? null;
    },
    async imageId(reference) {
      const r = await getJson(`/images/${encodeURIComponent(reference)}/json`);
      if (r.status === 404) return null;
      if (r.status !== 200) throw dockerUnavailable();
      return (r.body as { Id: string }).Id;
    },
    async tagImage(id, reference) {
      const colon = reference.lastIndexOf(':');
      const slash = reference.lastIndexOf('/');
      const [repo, tag] =
        colon > slash ? [reference.slice(0, colon), reference.slice(colon + 1)] : [reference, 'latest'];
      const q = new URLSearchParams({ repo, tag });
      const res = await request(`/images/${encodeURIComponent(id)}/tag?${q}`, undefined, false, 'POST');
      res.resume();
      if (res.statusCode !== 201) throw dockerUnavailable();
    },
    async *logs(container: EngineContainerSummary, o: LogsOptions): AsyncIterable<LogLine> {
      const q = new URLSearchParams({
        stdout: '1',
        stderr: '1',
        timestamps: '1',
        follow: o.follow ? '1' : '0',
      });
      if (o.tail !== undefined) q.set('tail', String(o.tail));
      if (o.since !== undefined) q.set('since', String(o.since));
      let res: http.IncomingMessage;
      try {
        res = await request(`/containers/${encodeURIComponent(container.id)}/logs?${q}`, o.signal, true);
      } catch (e) {
        if (o.signal?.aborted) return;
        throw e;
      }
      if (res.statusCode === 404) {
        res.resume();
        return;
      }
      if (res.statusCode !== 200) {
        res.resume();
        throw dockerUnavailable();
      }
      const demux = new LogDemuxer();
      const mk = (l: { stream: 'stdout' | 'stderr'; time: string; text: string }): LogLine => ({
        ...l,
        service: container.service,
        container: container.name,
      });
      try {
        for await (const chunk of res) for (const l of demux.push(chunk as Buffer)) yield mk(l);
      } catch (e) {
        if (!o.signal?.aborted) throw e;
      }
      for (const l of demux.end()) yield mk(l);
    },
  };
}

function toSummary(c: RawContainer): EngineContainerSummary {
  const labels = c.Labels ?? {};
  const ports = new Map<string, EngineContainerSummary['ports'][number]>();
  for (const p of c.Ports ?? []) {
    if (!p.PublicPort) continue;
    const port = {
      hostIp: p.IP ?? '',
      published: p.PublicPort,
      target: p.PrivatePort ?? 0,
      protocol: p.Type ?? 'tcp',
    };
    ports.set(`${port.hostIp}|${port.published}|${port.protocol}`, port);
  }
  return {
    id: c.Id,
    name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''),
    project: labels[PROJECT] ?? '',
    service: labels[SERVICE] ?? '',
    state: c.State ?? '',
    status: c.Status ?? '',
    image: c.Image ?? '',
    imageId: c.ImageID ?? '',
    ports: [...ports.values()],
  };
}
