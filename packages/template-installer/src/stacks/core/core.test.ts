import { describe, expect, it } from 'vitest';
import type { EngineContainerSummary } from '../ports.ts';
import { dataFolders, bindSources } from './app-data.ts';
import { checkRemoveConfirmation } from './confirm.ts';
import { LogDemuxer, mergeNewestLast } from './log-demux.ts';
import { portConflicts } from './port-conflict.ts';
import { parseStep, ServiceProgress } from './progress.ts';
import { composeServices } from './services.ts';
import { parseStatus, stackState } from './state.ts';

const container = (over: Partial<EngineContainerSummary>): EngineContainerSummary => ({
  id: 'a'.repeat(64),
  name: 'web_app_1',
  project: 'web',
  service: 'app',
  state: 'running',
  status: 'Up 3 seconds',
  image: 'busybox:latest',
  imageId: 'sha256:img',
  ports: [],
  ...over,
});

describe('state', () => {
  it('reads exit codes and health from the status text', () => {
    expect(parseStatus('Exited (137) 2 seconds ago')).toEqual({ exitCode: 137, health: null });
    expect(parseStatus('Up 5 minutes (healthy)')).toEqual({ exitCode: null, health: 'healthy' });
    expect(parseStatus('Up 1 second (health: starting)')).toEqual({ exitCode: null, health: 'starting' });
    expect(parseStatus('Up 9 seconds (unhealthy)').health).toBe('unhealthy');
  });

  it('lists every service of the file, with containers, digests, ports and updates', () => {
    const s = stackState({
      name: 'web',
      template: null,
      installedAt: '2026-01-01T00:00:00Z',
      directory: '/var/lib/appliance/stacks/web',
      services: ['app', 'db'],
      containers: [
        container({
          ports: [{ hostIp: '127.0.0.1', published: 8080, target: 80, protocol: 'tcp' }],
        }),
      ],
      digests: new Map([['sha256:img', ['reg/busybox@sha256:d1', 'other/busybox@sha256:d1']]]),
      updates: new Map([['app', 'newer']]),
    });
    expect(s.status).toBe('partial');
    expect(s.updateAvailable).toBe(true);
    expect(s.services.map((x) => x.name)).toEqual(['app', 'db']);
    expect(s.services[0]!.containers[0]).toMatchObject({
      id: 'aaaaaaaaaaaa',
      state: 'running',
      exitCode: null,
      digests: ['sha256:d1'],
      ports: [{ hostIp: '127.0.0.1', published: 8080, target: 80, protocol: 'tcp' }],
    });
    expect(s.services[1]!.containers).toEqual([]);
  });

  it('stopped, exited with code, not created, restarting', () => {
    const base = {
      name: 'web',
      template: null,
      installedAt: 'x',
      directory: 'd',
      services: ['app'],
      digests: new Map(),
      updates: new Map(),
    };
    const exited = stackState({
      ...base,
      containers: [container({ state: 'exited', status: 'Exited (3) 1 second ago' })],
    });
    expect(exited.status).toBe('stopped');
    expect(exited.services[0]!.containers[0]!.exitCode).toBe(3);
    expect(stackState({ ...base, containers: [] }).status).toBe('not_created');
    expect(stackState({ ...base, containers: [container({ state: 'restarting' })] }).status).toBe(
      'restarting',
    );
    expect(stackState({ ...base, containers: [container({})] }).status).toBe('running');
  });

  it('reads service names in file order', () => {
    expect(composeServices('services:\n  b: {image: x}\n  a: {image: y}\n')).toEqual(['b', 'a']);
    expect(composeServices(': : bad')).toEqual([]);
  });
});

describe('port conflicts', () => {
  it('names another stack’s container or a process; the stack’s own ports are not conflicts', () => {
    const ports = (p: number) => [{ hostIp: '127.0.0.1', published: p, target: 80, protocol: 'tcp' }];
    const c = portConflicts({
      stack: 'web',
      ports: [8080, 8081, 8082, 8083],
      containers: [
        container({ ports: ports(8080) }),
        container({ name: 'other_db_1', project: 'other', ports: ports(8081) }),
      ],
      listeners: [
        { port: 8080, holder: 'process docker-proxy (pid 1)' },
        { port: 8082, holder: 'process nc (pid 42)' },
      ],
    });
    expect(c).toEqual([
      { port: 8081, holder: 'container other_db_1 (stack other)' },
      { port: 8082, holder: 'process nc (pid 42)' },
    ]);
  });
});

describe('progress', () => {
  it('parses docker-compose v1 and v2 lines into per-service steps', () => {
    const services = ['app', 'db-main'];
    expect(parseStep('Starting web_app_1 ... done', 'web', services)).toEqual({
      service: 'app',
      action: 'starting',
      done: true,
    });
    expect(parseStep('Creating web_db-main_1 ... ', 'web', services)).toEqual({
      service: 'db-main',
      action: 'creating',
      done: false,
    });
    expect(parseStep(' Container web-db-main-1  Started', 'web', services)).toEqual({
      service: 'db-main',
      action: 'started',
      done: true,
    });
    expect(parseStep('Creating network "web_default" with the default driver', 'web', services)).toBeNull();
    const p = new ServiceProgress(services);
    expect(p.step({ service: 'app', action: 'starting', done: true }).percent).toBe(50);
    expect(p.step({ service: 'app', action: 'starting', done: true }).percent).toBe(50);
    expect(p.step({ service: 'db-main', action: 'starting', done: true }).percent).toBe(99);
  });
});

describe('log demultiplexing', () => {
  const frame = (stream: number, text: string) => {
    const payload = Buffer.from(text);
    const h = Buffer.alloc(8);
    h[0] = stream;
    h.writeUInt32BE(payload.length, 4);
    return Buffer.concat([h, payload]);
  };
  it('splits frames cut anywhere into lines with their stream and time', () => {
    const all = Buffer.concat([
      frame(1, '2026-11-28T10:00:00.5Z hello\n2026-11-28T10:00:01Z wor'),
      frame(1, 'ld\n'),
      frame(2, '2026-11-28T10:00:02.000000001Z oops\n'),
    ]);
    const d = new LogDemuxer();
    const out = [];
    for (let i = 0; i < all.length; i += 5) out.push(...d.push(all.subarray(i, i + 5)));
    out.push(...d.end());
    expect(out).toEqual([
      { stream: 'stdout', time: '2026-11-28T10:00:00.5Z', text: 'hello' },
      { stream: 'stdout', time: '2026-11-28T10:00:01Z', text: 'world' },
      { stream: 'stderr', time: '2026-11-28T10:00:02.000000001Z', text: 'oops' },
    ]);
  });
  it('reads a TTY stream as raw stdout lines', () => {
    const d = new LogDemuxer();
    expect(d.push(Buffer.from('2026-11-28T10:00:00Z plain\n'))).toEqual([
      { stream: 'stdout', time: '2026-11-28T10:00:00Z', text: 'plain' },
    ]);
  });
  it('merges containers by time, newest last, keeping the tail', () => {
    const a = [
      { time: '2026-11-28T10:00:00.5Z', t: 'a1' },
      { time: '2026-11-28T10:00:02Z', t: 'a2' },
    ];
    const b = [
      { time: '2026-11-28T10:00:00.25Z', t: 'b1' },
      { time: '2026-11-28T10:00:01Z', t: 'b2' },
    ];
    expect(mergeNewestLast([a, b]).map((x) => x.t)).toEqual(['b1', 'a1', 'b2', 'a2']);
    expect(mergeNewestLast([a, b], 2).map((x) => x.t)).toEqual(['b2', 'a2']);
  });
});

describe('removal', () => {
  it('wants the exact phrase, a longer one for the data', () => {
    expect(() => checkRemoveConfirmation('web', 'DELETE web', false)).not.toThrow();
    expect(() => checkRemoveConfirmation('web', 'delete web', false)).toThrow(/type exactly "DELETE web"/);
    expect(() => checkRemoveConfirmation('web', 'DELETE web', true)).toThrow(/DELETE web AND ITS DATA/);
    expect(() => checkRemoveConfirmation('web', 'DELETE web AND ITS DATA', true)).not.toThrow();
  });
  it('keeps only bind folders strictly below the app-data root, outermost', () => {
    const model = {
      services: {
        a: { volumes: ['/mnt/cache/appdata/web:/config', '/mnt/user/media:/media:ro', 'named:/x'] },
        b: {
          volumes: [
            { type: 'bind', source: '/mnt/cache/appdata/web/sub', target: '/y' },
            { type: 'bind', source: '/mnt/cache', target: '/all' },
            '/mnt/cache/../etc:/etc2',
          ],
        },
      },
    };
    expect(dataFolders(bindSources(model), '/mnt/cache')).toEqual(['/mnt/cache/appdata/web']);
  });
});
