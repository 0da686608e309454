/**
 * Stacks that run (issue 35) through the real server, a private dockerd, Debian's docker-registry
 * on loopback and the real docker-compose: a busybox template installed from a lab catalog source,
 * started (its port answers on 127.0.0.1), stopped, restarted; a start refused while another
 * process holds its port; a service restart keeps it running; logs; a viewer reads, never acts;
 * removal keeps the data, or removes it only below the app-data root (a planted symlink to a
 * share is not followed).
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  freeLoopbackPort,
  type LocalRegistry,
  type PrivateDockerd,
  requirePrerequisites,
  startLocalRegistry,
  startPrivateDockerd,
} from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitJob } from '../../../test-support/lab-array.ts';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

let dockerd: PrivateDockerd;
let registry: LocalRegistry;
let s: Sandbox;
let hostRoot: string;
let root: string;
let port = 0;
let image = '';
let viewerToken = '';
const servers: net.Server[] = [];
const previousDockerHost = process.env['DOCKER_HOST'];

const appdata = () => path.join(s.root, 'mnt/cache/appdata');
const shareDir = () => path.join(s.root, 'mnt/user/media');

const TEMPLATE = (id: string) => `services:
  web:
    image: \${IMAGE}
    restart: unless-stopped
    stop_grace_period: 1s
    command: ["sh", "-c", "mkdir -p /www && echo \\"hello from $$APP_VERSION\\" > /www/index.html && echo web says hello && exec httpd -f -p 80 -h /www"]
    healthcheck:
      test: ["CMD-SHELL", "test \\"$$APP_VERSION\\" != broken"]
      interval: 1s
      timeout: 2s
      retries: 2
    volumes:
      - "\${APPDATA}:/data"
    ports:
      - "127.0.0.1:\${WEBUI_PORT}:80"
x-service:
  schema: 1
  id: ${id}
  revision: 1
  title: Hello
  categories: [testing]
  docs: https://example.org/${id}
  inputs:
    IMAGE: {kind: string, default: busybox, label: Image}
    APPDATA: {kind: path, role: appdata, default: /mnt/cache/appdata, label: App data folder}
    WEBUI_PORT: {kind: port, default: 18080, label: Web UI port}
`;

const fetchText = async (p: number) => {
  try {
    const r = await fetch(`http://127.0.0.1:${p}/`, { signal: AbortSignal.timeout(3000) });
    return await r.text();
  } catch {
    return null;
  }
};

async function eventually<T>(fn: () => Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function job(method: string, p: string, body?: unknown, box: Sandbox = s) {
  const r = await box.call(method, p, body);
  expect(r.status, r.text).toBe(202);
  expect(r.headers.get('location')).toBe(`/api/v1/jobs/${r.body.id}`);
  return waitJob(box, r.body.id, 240_000);
}

const running = async (project: string) =>
  (
    await dockerd.docker(['ps', '-q', '--filter', `label=com.docker.compose.project=${project}`])
  ).stdout.trim() !== '';

/** Commits version `v` of the app as the image's tag, pushes it and drops the local tag (as a registry update). */
async function publish(v: string, keepLocal = true): Promise<string> {
  await dockerd.docker(['commit', '--change', `ENV APP_VERSION=${v}`, 'maker', image]);
  await dockerd.docker(['push', image]);
  const digests = JSON.parse(
    (await dockerd.docker(['inspect', '--format', '{{json .RepoDigests}}', image])).stdout,
  );
  if (!keepLocal) await dockerd.docker(['rmi', image]);
  return String(digests[0]).split('@')[1]!;
}

const conditionRows = () =>
  s.server.ctx.sqlite
    .prepare(
      "select key, title, message, cleared_at as clearedAt from watcher_conditions where key like 'image:%' order by id",
    )
    .all() as { key: string; title: string; message: string; clearedAt: string | null }[];

async function install(name: string, values: Record<string, string | number>) {
  const strings = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
  strings['APPDATA'] = path.join(appdata(), name);
  const r = await s.call('POST', '/templates/hello/install', { name, values: strings });
  expect(r.status, r.text).toBe(201);
}

beforeAll(async () => {
  await requirePrerequisites({
    root: true,
    tools: ['dockerd', 'docker', 'docker-compose', 'docker-registry'],
  });
  dockerd = await startPrivateDockerd();
  registry = await startLocalRegistry();
  process.env['DOCKER_HOST'] = dockerd.host;
  image = `${registry.host}/lab/hello:1`;
  // version 1 of the app: busybox with APP_VERSION=1 in its environment, pushed to the registry
  await dockerd.docker(['create', '--name', 'maker', dockerd.busyboxImage, 'true']);
  await publish('1');
  hostRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hostroot-'));
  for (const d of ['proc', 'sys', 'dev']) fs.symlinkSync(`/${d}`, path.join(hostRoot, d));
  fs.mkdirSync(path.join(hostRoot, 'etc'));
  fs.writeFileSync(path.join(hostRoot, 'etc/group'), 'root:x:0:\n');
  s = await startSandbox({ hostRoot });
  root = s.root;
  expect((await s.call('POST', '/catalog/sources', { id: 'lab', kind: 'directory' })).status).toBe(201);
  const lab = path.join(s.root, 'var/lib/appliance/catalog/lab/hello');
  fs.mkdirSync(lab, { recursive: true });
  fs.writeFileSync(path.join(lab, 'compose.yaml'), TEMPLATE('hello'));
  fs.mkdirSync(appdata(), { recursive: true });
  fs.mkdirSync(shareDir(), { recursive: true });
  fs.writeFileSync(path.join(shareDir(), 'film.mkv'), 'precious');
  port = await freeLoopbackPort();
  await install('hello', { IMAGE: image, APPDATA: appdata(), WEBUI_PORT: port });
  const v = await s.call('POST', '/users', {
    username: 'watcher',
    role: 'viewer',
    password: 'viewer password 42',
  });
  expect(v.status, v.text).toBe(201);
  const t = await s.call(
    'POST',
    '/tokens',
    { name: 'v', role: 'viewer' },
    {
      token: null,
      headers: { authorization: `Basic ${Buffer.from('watcher:viewer password 42').toString('base64')}` },
    },
  );
  expect(t.status, t.text).toBe(201);
  viewerToken = t.body.token;
}, 300_000);

afterAll(async () => {
  for (const srv of servers) srv.close();
  await s?.close();
  await registry?.stop();
  await dockerd?.stop();
  if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = previousDockerHost;
  if (hostRoot) fs.rmSync(hostRoot, { recursive: true, force: true });
}, 120_000);

describe('a stack’s life', () => {
  it('an installed stack is listed, not created, with its service', async () => {
    const r = await s.call('GET', '/stacks');
    expect(r.status, r.text).toBe(200);
    expect(r.body.docker).toBe('ok');
    expect(r.body.stacks).toEqual([
      expect.objectContaining({
        name: 'hello',
        status: 'not_created',
        services: [{ name: 'web', containers: [], updateAvailable: null }],
        updateAvailable: false,
      }),
    ]);
    expect((await s.call('GET', '/stacks/nope')).body.code).toBe('stack_not_found');
  });

  it('start: a job with per-service progress; the container runs and its port answers on loopback', async () => {
    const done = await job('POST', '/stacks/hello/start');
    expect(done.state, JSON.stringify(done)).toBe('succeeded');
    expect(done.output.join('\n')).toMatch(/hello_web_1/);
    expect(done.result.status).toBe('running');
    expect(await eventually(() => fetchText(port))).toBe('hello from 1\n');
    const st = (await s.call('GET', '/stacks/hello')).body;
    const c = st.services[0].containers[0];
    expect(c).toMatchObject({ name: 'hello_web_1', state: 'running', exitCode: null, image });
    expect(c.digests).toHaveLength(1);
    expect(c.digests[0]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(c.ports).toEqual([{ hostIp: '127.0.0.1', published: port, target: 80, protocol: 'tcp' }]);
    const audit = s.server.ctx.sqlite
      .prepare("select operation, target from audit_log where operation like 'stack.%'")
      .all();
    expect(audit).toEqual([{ operation: 'stack.start', target: 'stacks/hello' }]);
  });

  it('logs: the container’s output, newest last, per service; followed over SSE', async () => {
    const r = await s.call('GET', '/stacks/hello/logs?service=web&tail=10');
    expect(r.status, r.text).toBe(200);
    expect(r.body.lines.map((l: { text: string }) => l.text)).toContain('web says hello');
    expect(r.body.lines[0]).toMatchObject({ service: 'web', container: 'hello_web_1', stream: 'stdout' });
    expect((await s.call('GET', '/stacks/hello/logs?service=nope')).body.code).toBe('service_not_found');
    expect((await s.call('GET', '/stacks/hello/logs?tail=abc')).status).toBe(400);
    const controller = new AbortController();
    const res = await fetch(`${s.url}/api/v1/stacks/hello/logs?follow=1&tail=5`, {
      headers: { authorization: `Bearer ${viewerToken}` },
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('web says hello')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    controller.abort();
    expect(text).toMatch(/event: line\ndata: \{.*"text":"web says hello"/);
  });

  it('a viewer reads state and logs but cannot act', async () => {
    const as = { token: viewerToken };
    expect((await s.call('GET', '/stacks', undefined, as)).status).toBe(200);
    expect((await s.call('GET', '/stacks/hello', undefined, as)).status).toBe(200);
    expect((await s.call('GET', '/stacks/hello/logs', undefined, as)).status).toBe(200);
    const before = s.dumpDatabase();
    for (const [m, p, b] of [
      ['POST', '/stacks/hello/stop', {}],
      ['POST', '/stacks/hello/start', {}],
      ['POST', '/stacks/hello/restart', {}],
      ['DELETE', '/stacks/hello', { confirm: 'DELETE hello' }],
    ] as const) {
      const r = await s.call(m, p, b, as);
      expect(r.status, `${m} ${p}`).toBe(403);
    }
    expect(s.dumpDatabase()).toBe(before);
    expect(await running('hello')).toBe(true);
  });

  it('a service restart keeps a started stack running', async () => {
    const token = s.token;
    await s.close({ keepRoot: true });
    s = await startSandbox({ root, hostRoot, admin: false });
    s.token = token;
    expect(await running('hello')).toBe(true);
    expect(await fetchText(port)).toBe('hello from 1\n');
    expect((await s.call('GET', '/stacks/hello')).body.status).toBe('running');
  });

  it('stop, then restart: stopped stays stopped, restart brings it back', async () => {
    const stopped = await job('POST', '/stacks/hello/stop');
    expect(stopped.state, JSON.stringify(stopped)).toBe('succeeded');
    expect(stopped.result.status).toBe('stopped');
    expect(await running('hello')).toBe(false);
    expect(await fetchText(port)).toBeNull();
    const st = (await s.call('GET', '/stacks/hello')).body;
    expect(st.services[0].containers[0]).toMatchObject({ state: 'exited' });
    expect(typeof st.services[0].containers[0].exitCode).toBe('number');
    const restarted = await job('POST', '/stacks/hello/restart');
    expect(restarted.state, JSON.stringify(restarted)).toBe('succeeded');
    expect(await eventually(() => fetchText(port))).toBe('hello from 1\n');
  });

  it('a start whose port another process holds is refused before anything starts, naming it', async () => {
    const other = await freeLoopbackPort();
    await install('second', { IMAGE: image, APPDATA: appdata(), WEBUI_PORT: other });
    const srv = net.createServer();
    await new Promise<void>((r) => srv.listen(other, '127.0.0.1', () => r()));
    servers.push(srv);
    const before = s.dumpDatabase();
    const r = await s.call('POST', '/stacks/second/start', {});
    expect(r.status, r.text).toBe(409);
    expect(r.body.code).toBe('port_in_use');
    const holder = expect.stringMatching(new RegExp(`^process \\S+ \\(pid ${process.pid}\\)$`));
    expect(r.body.details.conflicts).toEqual([{ port: other, holder }]);
    expect(r.body.message).toMatch(
      new RegExp(`port ${other} is in use by process \\S+ \\(pid ${process.pid}\\)`),
    );
    expect(s.dumpDatabase()).toBe(before);
    expect(await running('second')).toBe(false);
  });

  it('update with every image current recreates nothing', async () => {
    const done = await job('POST', '/stacks/hello/update', {});
    expect(done.state, JSON.stringify(done)).toBe('succeeded');
    expect(done.result).toEqual({ stack: 'hello', updated: [] });
    expect((await s.call('POST', '/stacks/hello/update', { snapshot: true })).body.code).toBe(
      'no_backup_plan',
    );
  });

  it('update to a new digest pushed to the registry recreates the container on it; the condition clears', async () => {
    const before = (await s.call('GET', '/stacks/hello')).body.services[0].containers[0];
    const v2 = await publish('2', false);
    expect(before.digests).not.toContain(v2);
    expect((await s.server.ctx.watchers.runOnce('images')).error).toBeNull();
    const shown = (await s.call('GET', '/stacks/hello')).body;
    expect(shown.updateAvailable).toBe(true);
    expect(shown.services[0].updateAvailable).toMatch(/A newer image is available for the stack hello/);
    const done = await job('POST', '/stacks/hello/update', { healthTimeoutSeconds: 60 });
    expect(done.state, JSON.stringify(done)).toBe('succeeded');
    expect(done.result.updated).toEqual([
      expect.objectContaining({
        service: 'web',
        reference: image,
        toDigests: [v2],
        fromDigests: before.digests,
      }),
    ]);
    expect(await eventually(async () => (await fetchText(port)) === 'hello from 2\n')).toBe(true);
    const after = (await s.call('GET', '/stacks/hello')).body;
    expect(after.services[0].containers[0].digests).toEqual([v2]);
    expect(after.services[0].containers[0].id).not.toBe(before.id);
    expect(after.updateAvailable).toBe(false);
    expect(conditionRows().filter((r) => r.clearedAt === null)).toEqual([]);
  });

  it('an update whose new image fails its health check rolls back to the old digest and says so', async () => {
    const before = (await s.call('GET', '/stacks/hello')).body.services[0].containers[0];
    const v3 = await publish('broken', false);
    const done = await job('POST', '/stacks/hello/update', { healthTimeoutSeconds: 60 });
    expect(done.state, JSON.stringify(done)).toBe('failed');
    expect(done.error.code).toBe('update_rolled_back');
    expect(done.error.message).toMatch(
      /^The update of the stack hello was rolled back: the service web on the new image [0-9a-f]{12} failed \(its container hello_web_1 is unhealthy\)/,
    );
    expect(done.output.join('\n')).toMatch(/rolling back to the previous images/);
    const after = (await s.call('GET', '/stacks/hello')).body.services[0].containers[0];
    expect(after.digests).toEqual(before.digests);
    expect(after.digests).not.toContain(v3);
    expect(await eventually(async () => (await fetchText(port)) === 'hello from 2\n')).toBe(true);
    const open = conditionRows().filter((r) => r.clearedAt === null);
    expect(open).toEqual([
      expect.objectContaining({ key: 'image:hello/web', title: 'Stack hello: the update of web failed' }),
    ]);
    expect(open[0]!.message).toMatch(/applying it failed: The update of the stack hello was rolled back/);
  });

  it('values: a new port with the install’s rules; the running stack is restarted on it', async () => {
    const before = s.dumpDatabase();
    const bad = await s.call('PUT', '/stacks/hello/values', { values: { COLOUR: 'red' } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.code).toBe('invalid_template_input');
    expect(s.dumpDatabase()).toBe(before);
    const wanted = await freeLoopbackPort();
    // the port asked for is taken by another process: moved to the next free one, as install does
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(wanted, '127.0.0.1', () => r()));
    servers.push(blocker);
    const r = await s.call('PUT', '/stacks/hello/values', { values: { WEBUI_PORT: String(wanted) } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.changed).toEqual(['WEBUI_PORT']);
    const input = r.body.plan.inputs.find((i: { name: string }) => i.name === 'WEBUI_PORT');
    expect(input.requestedValue).toBe(String(wanted));
    const moved = Number(input.value);
    expect(moved).toBeGreaterThan(wanted);
    expect(r.body.restart).toMatchObject({ type: 'stack.start', target: 'stacks/hello' });
    const done = await waitJob(s, r.body.restart.id, 240_000);
    expect(done.state, JSON.stringify(done)).toBe('succeeded');
    expect(await eventually(async () => (await fetchText(moved)) === 'hello from 2\n')).toBe(true);
    expect(await fetchText(port)).toBeNull();
    expect(fs.readFileSync(path.join(s.root, 'var/lib/appliance/stacks/hello/.env'), 'utf8')).toContain(
      `WEBUI_PORT=${moved}`,
    );
    port = moved;
  });

  it('remove: refused without the exact phrase; down, folder and row gone, data kept', async () => {
    fs.mkdirSync(path.join(appdata(), 'second'), { recursive: true });
    fs.writeFileSync(path.join(appdata(), 'second/settings.json'), '{}');
    const before = s.dumpDatabase();
    for (const body of [{ confirm: 'DELETE Second' }, { confirm: 'DELETE second', removeData: true }]) {
      const r = await s.call('DELETE', '/stacks/second', body);
      expect(r.status, r.text).toBe(400);
      expect(r.body.code).toBe('confirmation_mismatch');
    }
    expect(s.dumpDatabase()).toBe(before);
    const done = await job('DELETE', '/stacks/second', { confirm: 'DELETE second' });
    expect(done.state, JSON.stringify(done)).toBe('succeeded');
    expect(done.result.data).toEqual([{ folder: path.join(appdata(), 'second'), outcome: 'kept' }]);
    expect(fs.existsSync(path.join(s.root, 'var/lib/appliance/stacks/second'))).toBe(false);
    expect(s.server.ctx.sqlite.prepare("select name from stacks where name = 'second'").all()).toEqual([]);
    expect(fs.readFileSync(path.join(appdata(), 'second/settings.json'), 'utf8')).toBe('{}');
    expect((await s.call('GET', '/stacks/second')).status).toBe(404);
  });

  it('remove with data: only below the app-data root; a planted symlink to a share is not followed', async () => {
    // the running stack's data folder holds a link to a share; a second bind is itself a link
    fs.writeFileSync(path.join(appdata(), 'hello/notes.txt'), 'mine');
    fs.symlinkSync(shareDir(), path.join(appdata(), 'hello/media-link'));
    const done = await job('DELETE', '/stacks/hello', {
      confirm: 'DELETE hello AND ITS DATA',
      removeData: true,
    });
    expect(done.state, JSON.stringify(done)).toBe('succeeded');
    expect(done.result.data).toEqual([{ folder: path.join(appdata(), 'hello'), outcome: 'removed' }]);
    expect(fs.existsSync(path.join(appdata(), 'hello'))).toBe(false);
    expect(fs.readFileSync(path.join(shareDir(), 'film.mkv'), 'utf8')).toBe('precious');
    expect(await running('hello')).toBe(false);
    expect(
      (
        await dockerd.docker(['ps', '-aq', '--filter', 'label=com.docker.compose.project=hello'])
      ).stdout.trim(),
    ).toBe('');
    expect(fs.existsSync(path.join(s.root, 'var/lib/appliance/stacks/hello'))).toBe(false);
  });

  it('remove with data: a data folder that is itself a link to a share is refused, the share intact', async () => {
    const p = await freeLoopbackPort();
    await install('third', { IMAGE: image, APPDATA: appdata(), WEBUI_PORT: p });
    fs.symlinkSync(shareDir(), path.join(appdata(), 'third'));
    const done = await job('DELETE', '/stacks/third', {
      confirm: 'DELETE third AND ITS DATA',
      removeData: true,
    });
    expect(done.state, JSON.stringify(done)).toBe('succeeded');
    expect(done.result.data).toEqual([{ folder: path.join(appdata(), 'third'), outcome: 'symlink' }]);
    expect(fs.readFileSync(path.join(shareDir(), 'film.mkv'), 'utf8')).toBe('precious');
    expect(fs.lstatSync(path.join(appdata(), 'third')).isSymbolicLink()).toBe(true);
  });
});
