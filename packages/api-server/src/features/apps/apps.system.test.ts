/**
 * Template install through the real server, a REAL private dockerd and the real compose tool
 * (02 §16 and issue 7). DOCKER_HOST points at the private daemon; host facts (render devices,
 * render group, time zone) come from a sandbox host root whose /proc is the real one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type PrivateDockerd, requirePrerequisites, startPrivateDockerd } from '@appliance/lab';
import { readHostSocketPorts } from '@appliance/template-installer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProgressData } from '../../services/events.ts';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { webPortTemplate } from '../../../test-support/templates.ts';

let dockerd: PrivateDockerd;
let s: Sandbox;
let hostRoot: string;
let base = 0; // the porty template's default port; base..base+80 were free at start
const servers: net.Server[] = [];
const responses: string[] = [];
const previousDockerHost = process.env['DOCKER_HOST'];

const call = async (method: string, p: string, body?: unknown) => {
  const r = await s.call(method, p, body);
  responses.push(r.text);
  return r;
};

const stacksDir = () => path.join(s.root, 'var/lib/appliance/stacks');
const labDir = () => path.join(s.root, 'var/lib/appliance/catalog/lab');
const stackRows = () =>
  s.server.ctx.sqlite.prepare('select name, pending from stacks order by name').all() as { name: string }[];
const auditRows = () =>
  s.server.ctx.sqlite
    .prepare('select operation, target, outcome, details from audit_log order by id')
    .all() as {
    operation: string;
    target: string;
    outcome: string;
    details: string;
  }[];

function writeLabTemplate(id: string, text: string): void {
  fs.mkdirSync(path.join(labDir(), id), { recursive: true });
  fs.writeFileSync(path.join(labDir(), id, 'compose.yaml'), text);
}

async function freeBase(): Promise<number> {
  const taken = await readHostSocketPorts('/proc');
  for (;;) {
    const b = 20000 + Math.floor(Math.random() * 35000);
    let ok = true;
    for (let p = b; p < b + 80; p++) if (taken.has(p)) ok = false;
    if (ok) return b;
  }
}

const listen = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });

function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...allFiles(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

const readEnv = (name: string) =>
  Object.fromEntries(
    fs
      .readFileSync(path.join(stacksDir(), name, '.env'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'docker-compose'] });
  dockerd = await startPrivateDockerd();
  process.env['DOCKER_HOST'] = dockerd.host;
  hostRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'apps-hostroot-'));
  fs.symlinkSync('/proc', path.join(hostRoot, 'proc'));
  fs.symlinkSync('/sys', path.join(hostRoot, 'sys'));
  fs.mkdirSync(path.join(hostRoot, 'dev/dri'), { recursive: true });
  fs.writeFileSync(path.join(hostRoot, 'dev/dri/renderD128'), '');
  fs.writeFileSync(path.join(hostRoot, 'dev/dri/card0'), '');
  fs.mkdirSync(path.join(hostRoot, 'etc'), { recursive: true });
  fs.writeFileSync(path.join(hostRoot, 'etc/group'), 'root:x:0:\nvideo:x:44:\nrender:x:44:\n');
  fs.writeFileSync(path.join(hostRoot, 'etc/timezone'), 'Europe/Vienna\n');
  s = await startSandbox({ hostRoot });
  const src = await call('POST', '/catalog/sources', { id: 'lab', kind: 'directory' });
  expect(src.status).toBe(201);
  base = await freeBase();
  writeLabTemplate('porty', webPortTemplate('porty', 1, base));
}, 180_000);

afterAll(async () => {
  for (const srv of servers) srv.close();
  await s?.close();
  await dockerd?.stop();
  if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = previousDockerHost;
  if (hostRoot) fs.rmSync(hostRoot, { recursive: true, force: true });
}, 120_000);

describe('catalog', () => {
  it('lists the built-in templates and the lab source', async () => {
    const r = await call('GET', '/catalog');
    expect(r.status).toBe(200);
    expect(r.body.sources.map((x: { id: string }) => x.id)).toEqual(['builtin', 'lab']);
    const ids = r.body.templates.map((t: { id: string }) => t.id);
    expect(ids).toEqual(expect.arrayContaining(['jellyfin', 'immich', 'privilege-showcase', 'porty']));
    expect(r.body.templates.every((t: { problems: unknown[] }) => t.problems.length === 0)).toBe(true);
    expect(r.body.sources[0]).toMatchObject({
      id: 'builtin',
      kind: 'builtin',
      position: 0,
      templateCount: 11,
      error: null,
    });
  });
});

describe('scenario 1: install jellyfin with defaults', () => {
  it('creates the row and files; nothing is started', async () => {
    const r = await call('POST', '/templates/jellyfin/install', {});
    expect(r.status).toBe(201);
    expect(r.body.stack).toMatchObject({
      name: 'jellyfin',
      template: { source: 'builtin', id: 'jellyfin', revision: 1 },
      manuallyEdited: false,
      directory: '/var/lib/appliance/stacks/jellyfin',
    });
    const dir = path.join(stacksDir(), 'jellyfin');
    const templateText = fs.readFileSync(
      path.join(s.root, 'var/lib/appliance/catalog/builtin/jellyfin/compose.yaml'),
      'utf8',
    );
    expect(fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8')).toBe(templateText);
    const env = fs.readFileSync(path.join(dir, '.env'), 'utf8');
    expect(env).toMatch(
      /^APPDATA=\/mnt\/cache\/appdata\nMEDIA=\/mnt\/user\/media\nTRANSCODE_GPU=\nTZ=Europe\/Vienna\nWEBUI_PORT=\d+\n$/,
    );
    expect(fs.statSync(path.join(dir, '.env')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'))).toMatchObject({
      name: 'jellyfin',
      template: { source: 'builtin', id: 'jellyfin', revision: 1 },
    });
    expect(stackRows()).toEqual([{ name: 'jellyfin', pending: 0 }]);
    const { stdout } = await dockerd.docker(['ps', '-aq']);
    expect(stdout.trim()).toBe('');
    const list = await call('GET', '/stacks');
    expect(list.body.stacks.map((x: { name: string }) => x.name)).toEqual(['jellyfin']);
    expect(auditRows().at(-1)).toMatchObject({
      operation: 'template.install',
      target: 'stacks/jellyfin',
      outcome: 'ok',
    });
  });
  it('scenario 11: a folder holding a Compose file is refused, untouched, tool not run', async () => {
    fs.mkdirSync(path.join(stacksDir(), 'taken'), { recursive: true });
    fs.writeFileSync(path.join(stacksDir(), 'taken', 'compose.yaml'), 'mine');
    const r = await call('POST', '/templates/trilium/install', { name: 'taken' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'stack_dir_exists', details: { stack: 'taken' } });
    expect(fs.readFileSync(path.join(stacksDir(), 'taken', 'compose.yaml'), 'utf8')).toBe('mine');
    expect(fs.readdirSync(path.join(stacksDir(), 'taken'))).toEqual(['compose.yaml']);
    expect(stackRows().map((x) => x.name)).not.toContain('taken');
  });
  it('stack_exists for a second install with the same name', async () => {
    const r = await call('POST', '/templates/jellyfin/install', {});
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('stack_exists');
  });
});

describe('progress events (08 §12)', () => {
  it('one event per install step, in order, at most 4 a second, one done; none for a refusal', async () => {
    const seen: { at: number; data: ProgressData }[] = [];
    const unsubscribe = s.server.ctx.events.subscribe((e) => {
      if (e.type === 'progress') seen.push({ at: Date.now(), data: e.data });
    });
    try {
      // Earlier installs' paced events may still be draining (the answer does not wait for them):
      // wait for a quiet 400 ms (the pacing publishes every 250 ms), then start from nothing.
      for (let n = -1; n !== seen.length; ) {
        n = seen.length;
        await new Promise((r) => setTimeout(r, 400));
      }
      seen.length = 0;
      // refused: an existing stack, a bad input, an unknown template
      expect((await call('POST', '/templates/jellyfin/install', {})).status).toBe(409);
      expect((await call('POST', '/templates/trilium/install', { values: { COLOUR: 'red' } })).status).toBe(
        400,
      );
      expect((await call('POST', '/templates/nope/install', {})).status).toBe(404);
      expect(seen).toEqual([]);

      const r = await call('POST', '/templates/trilium/install', { name: 'watched' });
      expect(r.status).toBe(201);
      // the answer does not wait for the paced events: the last ones (and done) may follow it
      await vi.waitFor(() => expect(seen.at(-1)?.data.done).toBe(true), { timeout: 5000 });
      const data = seen.map((x) => x.data);
      expect(
        data.map((p) => [p.progress['step'], p.progress['stepIndex'], p.progress['steps'], p.done]),
      ).toEqual([
        ['record', 1, 4, false],
        ['write_files', 2, 4, false],
        ['compose_check', 3, 4, false],
        ['finish', 4, 4, false],
        ['finish', 4, 4, true],
      ]);
      expect(data.at(-1)!.progress['ok']).toBe(true);
      expect(data.every((p) => p.operation === 'template.install' && p.target === 'watched')).toBe(true);
      expect(new Set(data.map((p) => p.operationId)).size).toBe(1);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.at - seen[i - 1]!.at).toBeGreaterThanOrEqual(245);
    } finally {
      unsubscribe();
    }
  });
});

describe('ports', () => {
  it('a host socket, a stopped container and a never-started stack each push the port', async () => {
    servers.push(await listen(base));
    await dockerd.docker([
      'create',
      '--name',
      'stopped',
      '-p',
      `${base + 1}:80`,
      dockerd.busyboxImage,
      'true',
    ]);
    const hand = await call('POST', '/stacks', {
      name: 'handmade',
      compose: `services:\n  a:\n    image: busybox:1.37.0\n    ports: ["\${P}:80"]\n`,
      env: { P: String(base + 2) },
    });
    expect(hand.status).toBe(201);
    const preview = await call('POST', '/templates/porty/preview', {});
    expect(preview.status).toBe(200);
    expect(preview.body.inputs[0]).toMatchObject({
      name: 'WEBUI_PORT',
      value: String(base + 3),
      requestedValue: String(base),
    });
    const got: string[] = [];
    for (const name of ['porty-1', 'porty-2', 'porty-3']) {
      const r = await call('POST', '/templates/porty/install', { name });
      expect(r.status).toBe(201);
      expect(r.body.plan.inputs[0].requestedValue).toBe(String(base));
      got.push(r.body.plan.inputs[0].value);
      expect(readEnv(name)['WEBUI_PORT']).toBe(r.body.plan.inputs[0].value);
    }
    expect(got).toEqual([String(base + 3), String(base + 4), String(base + 5)]);
  }, 120_000);
  it('20 concurrent installs: 20 stacks, 20 distinct ports, no lost rows', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `many-${i + 1}`);
    const results = await Promise.all(
      names.map((name) => s.call('POST', '/templates/porty/install', { name })),
    );
    expect(results.map((r) => r.status)).toEqual(names.map(() => 201));
    const ports = results.map((r) => r.body.plan.inputs[0].value);
    expect(new Set(ports).size).toBe(20);
    // The range after porty-1..3 was free when the test started: the 20 installs fill it exactly.
    expect(ports.map(Number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => base + 6 + i),
    );
    const rows = stackRows().map((x) => x.name);
    for (const n of names) expect(rows).toContain(n);
    for (const n of names) expect(fs.existsSync(path.join(stacksDir(), n, 'docker-compose.yml'))).toBe(true);
  }, 300_000);
  it('scenario 13: a deleted .env is rewritten from the row; existing files are never overwritten', async () => {
    const dir = path.join(stacksDir(), 'porty-1');
    const envBefore = fs.readFileSync(path.join(dir, '.env'), 'utf8');
    fs.rmSync(path.join(dir, '.env'));
    fs.appendFileSync(path.join(dir, 'docker-compose.yml'), '# edited by hand\n');
    const composeBefore = fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8');
    const metaStat = fs.statSync(path.join(dir, 'meta.json'));
    const r = await call('POST', '/templates/porty/install', { name: 'porty-4' });
    expect(r.status).toBe(201);
    expect(fs.readFileSync(path.join(dir, '.env'), 'utf8')).toBe(envBefore);
    expect(fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8')).toBe(composeBefore);
    expect(fs.statSync(path.join(dir, 'meta.json')).mtimeMs).toBe(metaStat.mtimeMs);
    expect(r.body.plan.inputs[0].value).not.toBe(readEnv('porty-1')['WEBUI_PORT']);
  });
});

describe('secrets', () => {
  it('scenario 5: 48 lowercase hex, different per install, only in .env and the sealed column', async () => {
    const a = await call('POST', '/templates/immich/install', {});
    const b = await call('POST', '/templates/immich/install', { name: 'immich-2' });
    expect([a.status, b.status]).toEqual([201, 201]);
    const s1 = readEnv('immich')['DB_PASSWORD']!;
    const s2 = readEnv('immich-2')['DB_PASSWORD']!;
    expect(s1).toMatch(/^[0-9a-f]{48}$/);
    expect(s2).toMatch(/^[0-9a-f]{48}$/);
    expect(s1).not.toBe(s2);
    expect(a.body.plan.inputs.find((i: { name: string }) => i.name === 'DB_PASSWORD')).toEqual({
      name: 'DB_PASSWORD',
      kind: 'secret',
      label: 'Database password',
      generated: true,
      required: false,
    });
    const sealed = s.server.ctx.sqlite.prepare("select env from stacks where name = 'immich'").get() as {
      env: Buffer;
    };
    expect(s.server.ctx.sealer.unsealText(sealed.env)).toContain(`DB_PASSWORD=${s1}`);
    for (const secret of [s1, s2]) {
      for (const text of responses) expect(text).not.toContain(secret);
      for (const line of s.logs) expect(line).not.toContain(secret);
      expect(s.dumpDatabase()).not.toContain(secret);
      for (const file of allFiles(s.root)) {
        if (path.basename(file) === '.env' && /immich(-2)?$/.test(path.dirname(file))) continue;
        expect(fs.readFileSync(file).includes(secret), file).toBe(false);
      }
    }
  }, 120_000);
});

describe('GPU', () => {
  it('scenario 6: the device and the render group on every service, comments kept', async () => {
    const r = await call('POST', '/templates/paperless-ngx/install', { values: {} });
    expect(r.status).toBe(201);
    const g = await call('POST', '/templates/jellyfin/install', {
      name: 'jelly-gpu',
      values: { TRANSCODE_GPU: '/dev/dri/renderD128' },
    });
    expect(g.status).toBe(201);
    const compose = fs.readFileSync(path.join(stacksDir(), 'jelly-gpu', 'docker-compose.yml'), 'utf8');
    expect(compose).toContain('      - "/dev/dri/renderD128:/dev/dri/renderD128"');
    expect(compose).toContain('    group_add:\n      - "44"');
    expect(compose).toContain('# Jellyfin media server.');
    expect(g.body.plan.privileges.map((p: { kind: string }) => p.kind)).toEqual(['group_add', 'host_device']);
    expect(readEnv('jelly-gpu')['TRANSCODE_GPU']).toBe('/dev/dri/renderD128');
  });
  it('scenario 7: 409 gpu_unavailable without a render group; nothing written', async () => {
    fs.writeFileSync(path.join(hostRoot, 'etc/group'), 'root:x:0:\nvideo:x:44:\n');
    try {
      const rows = stackRows();
      const r = await call('POST', '/templates/jellyfin/install', {
        name: 'jelly-nogpu',
        values: { TRANSCODE_GPU: '/dev/dri/renderD128' },
      });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'gpu_unavailable', details: { input: 'TRANSCODE_GPU' } });
      expect(stackRows()).toEqual(rows);
      expect(fs.existsSync(path.join(stacksDir(), 'jelly-nogpu'))).toBe(false);
    } finally {
      fs.writeFileSync(path.join(hostRoot, 'etc/group'), 'root:x:0:\nvideo:x:44:\nrender:x:44:\n');
    }
  });
});

describe('networks', () => {
  it('scenario 10: network_missing with the create command, then success once it exists', async () => {
    const net_ = `iot-${randomBytes(3).toString('hex')}`;
    const p = await call('POST', '/templates/trilium/preview', { name: 'notes', networkMode: net_ });
    expect(p.status).toBe(200);
    expect(p.body.warnings).toEqual([
      expect.objectContaining({
        class: 'missing_network',
        detail: net_,
        command: `docker network create ${net_}`,
      }),
    ]);
    const r = await call('POST', '/templates/trilium/install', { name: 'notes', networkMode: net_ });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      code: 'network_missing',
      details: { network: net_, command: `docker network create ${net_}` },
    });
    expect(r.body.message).toContain(`docker network create ${net_}`);
    expect(fs.existsSync(path.join(stacksDir(), 'notes'))).toBe(false);
    await dockerd.docker(['network', 'create', net_]);
    const ok = await call('POST', '/templates/trilium/install', { name: 'notes', networkMode: net_ });
    expect(ok.status).toBe(201);
    expect(ok.body.plan.compose).toContain(`networks:\n  ${net_}:\n    external: true\n`);
  });
});

describe('planDigest', () => {
  it('identical across preview and install; a catalog change gives 409 template_changed', async () => {
    writeLabTemplate('digesty', webPortTemplate('digesty', 1, base + 60));
    const p1 = await call('POST', '/templates/digesty/preview', {});
    // the preview ignores a planDigest (02 §2: install only), still checking its pattern
    const withDigest = await call('POST', '/templates/digesty/preview', { planDigest: 'f'.repeat(64) });
    expect([withDigest.status, withDigest.body]).toEqual([200, p1.body]);
    const badDigest = await call('POST', '/templates/digesty/preview', { planDigest: 'F'.repeat(64) });
    expect([badDigest.status, badDigest.body.code, badDigest.body.details.issues[0].path]).toEqual([
      400,
      'bad_request',
      'planDigest',
    ]);
    const ok = await call('POST', '/templates/digesty/install', {
      name: 'digesty-a',
      planDigest: p1.body.planDigest,
    });
    expect(ok.status).toBe(201);
    expect(ok.body.plan.planDigest).toBe(p1.body.planDigest);
    const p2 = await call('POST', '/templates/digesty/preview', { name: 'digesty-b' });
    writeLabTemplate('digesty', webPortTemplate('digesty', 2, base + 60));
    const rows = stackRows();
    const r = await call('POST', '/templates/digesty/install', {
      name: 'digesty-b',
      planDigest: p2.body.planDigest,
    });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('template_changed');
    expect(stackRows()).toEqual(rows);
    expect(fs.existsSync(path.join(stacksDir(), 'digesty-b'))).toBe(false);
    expect(auditRows().at(-1)).toMatchObject({
      operation: 'template.install',
      target: 'stacks/digesty-b',
      outcome: 'failed',
    });
    const p3 = await call('POST', '/templates/digesty/preview', { name: 'digesty-b' });
    expect(p3.body.planDigest).not.toBe(p2.body.planDigest);
    const again = await call('POST', '/templates/digesty/install', {
      name: 'digesty-b',
      planDigest: p3.body.planDigest,
    });
    expect(again.status).toBe(201);
    expect(again.body.stack.template).toEqual({ source: 'lab', id: 'digesty', revision: 2 });
  });
});

describe('values with quotes, backslashes and spaces', () => {
  it('are stored quoted in .env and accepted by the real compose tool', async () => {
    const peers = 'say "hi" to a\\b and c:d';
    const r = await call('POST', '/templates/wireguard/install', {
      name: 'vpn',
      values: { PEERS: peers, SERVER_URL: 'vpn.example.org' },
    });
    expect(r.status).toBe(201);
    const env = fs.readFileSync(path.join(stacksDir(), 'vpn', '.env'), 'utf8');
    expect(env).toContain('PEERS="say \\"hi\\" to a\\\\b and c:d"\n');
    expect(env).toContain('ALLOWEDIPS="0.0.0.0/0, ::/0"\n');
    expect(env).toContain('SERVER_URL=vpn.example.org\n');
    expect(r.body.plan.inputs.find((i: { name: string }) => i.name === 'PEERS').value).toBe(peers);
  });
});

describe('stack creation', () => {
  it('scenario 12: a failing config check leaves no row and no folder', async () => {
    const r = await call('POST', '/stacks', {
      name: 'broken',
      compose: 'services:\n  a:\n    image: x\n    ports: "nope"\n',
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_stack');
    expect(r.body.details.stack).toBe('broken');
    expect(typeof r.body.details.output).toBe('string');
    expect(r.body.details.output).not.toContain(s.root);
    expect(stackRows().map((x) => x.name)).not.toContain('broken');
    expect(fs.existsSync(path.join(stacksDir(), 'broken'))).toBe(false);
  });
  it('refuses a blank compose, a reserved or bad env name and a bad value', async () => {
    const cases: [unknown, string, string | undefined][] = [
      [{ name: 'x1', compose: '  \n' }, 'invalid_stack', undefined],
      [{ name: 'x2', compose: 'services: {}', env: { DOCKER_HOST: 'x' } }, 'invalid_stack', 'DOCKER_HOST'],
      [{ name: 'x3', compose: 'services: {}', env: { A: 'a\nb' } }, 'invalid_stack', 'A'],
      [{ name: 'Bad', compose: 'services: {}' }, 'invalid_stack_name', undefined],
    ];
    for (const [body, code, variable] of cases) {
      const r = await call('POST', '/stacks', body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(code);
      if (variable) expect(r.body.details.variable).toBe(variable);
    }
    // a name breaking the body's env key rule is a malformed body (02 §11.1), not invalid_stack
    const bad = await call('POST', '/stacks', { name: 'x4', compose: 'services: {}', env: { '1A': 'x' } });
    expect([bad.status, bad.body.code, bad.body.details.issues[0].path]).toEqual([
      400,
      'bad_request',
      'env.1A',
    ]);
    expect(fs.readdirSync(stacksDir()).filter((n) => /^x\d$/.test(n))).toEqual([]);
  });
});

describe('bad input: 4xx, details.input where an input is at fault, nothing written', () => {
  it('answers each with the right code', async () => {
    const before = s.dumpDatabase();
    const folders = fs.readdirSync(stacksDir()).sort();
    const cases: [string, unknown, number, string, string | undefined][] = [
      ['/templates/..%2F..%2Fetc/preview', {}, 404, 'template_not_found', undefined],
      ['/templates/Jellyfin/preview', {}, 404, 'template_not_found', undefined],
      ['/templates/nope/preview', {}, 404, 'template_not_found', undefined],
      ['/templates/jellyfin/preview', { values: { NOPE: 'x' } }, 400, 'invalid_template_input', 'NOPE'],
      ['/templates/wireguard/preview', { values: { PEERS: 'a\nb' } }, 400, 'invalid_template_input', 'PEERS'],
      [
        '/templates/wireguard/preview',
        { values: { PEERS: 'a\u0000b' } },
        400,
        'invalid_template_input',
        'PEERS',
      ],
      [
        '/templates/jellyfin/preview',
        { values: { WEBUI_PORT: '0' } },
        400,
        'invalid_template_input',
        'WEBUI_PORT',
      ],
      [
        '/templates/jellyfin/preview',
        { values: { WEBUI_PORT: '65536' } },
        400,
        'invalid_template_input',
        'WEBUI_PORT',
      ],
      [
        '/templates/jellyfin/preview',
        { values: { WEBUI_PORT: 'http' } },
        400,
        'invalid_template_input',
        'WEBUI_PORT',
      ],
      [
        '/templates/jellyfin/preview',
        { values: { MEDIA: '/mnt/user/a:b' } },
        400,
        'invalid_template_input',
        'MEDIA',
      ],
      ['/templates/trilium/preview', { networkMode: '$(rm -rf /)' }, 400, 'bad_request', undefined],
      ['/templates/trilium/preview', { networkMode: 'none' }, 400, 'bad_request', undefined],
      ['/templates/trilium/install', { planDigest: 'abc' }, 400, 'bad_request', undefined],
      ['/templates/trilium/install', { planDigest: 'A'.repeat(64) }, 400, 'bad_request', undefined],
      // the preview ignores a planDigest (02 §2), but not a malformed one
      ['/templates/trilium/preview', { planDigest: 'A'.repeat(64) }, 400, 'bad_request', undefined],
      ['/templates/trilium/install', { values: [] }, 400, 'bad_request', undefined],
      ['/templates/trilium/preview', { colour: 'red' }, 400, 'bad_request', undefined],
      [
        '/templates/trilium/preview',
        { values: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`V${i}`, 'x'])) },
        400,
        'bad_request',
        undefined,
      ],
      ['/templates/trilium/preview', { name: '../etc' }, 400, 'invalid_stack_name', undefined],
      ['/templates/immich/preview', { cpus: 2 }, 400, 'invalid_template_input', 'cpus'],
      ['/templates/trilium/preview', { memoryMiB: 5 }, 400, 'bad_request', undefined],
    ];
    for (const [p, body, status, code, input] of cases) {
      const r = await call('POST', p, body);
      expect([p, r.status, r.body.code]).toEqual([p, status, code]);
      expect(typeof r.body.message).toBe('string');
      if (input) expect(r.body.details.input).toBe(input);
    }
    const huge = await s.call('POST', '/templates/trilium/preview', {
      values: { APPDATA: `/mnt/user/${'x'.repeat(70_000)}` },
    });
    expect(huge.status).toBe(413);
    expect(s.dumpDatabase()).toBe(before);
    expect(fs.readdirSync(stacksDir()).sort()).toEqual(folders);
  });
  it('preview of the privilege showcase lists the 13 kinds (scenario 8) and writes nothing', async () => {
    const r = await call('POST', '/templates/privilege-showcase/preview', {});
    expect(r.status).toBe(200);
    expect(r.body.privileges.map((p: { kind: string }) => p.kind)).toEqual([
      'privileged',
      'host_network',
      'host_pid',
      'host_ipc',
      'device_cgroup_rules',
      'added_capabilities',
      'confinement_disabled',
      'group_add',
      'container_runtime',
      'gpu_reservation',
      'host_device',
      'docker_socket',
      'host_path',
    ]);
  });
  it('viewers list; only admins install', async () => {
    const anon = await s.call('POST', '/templates/trilium/install', {}, { token: null });
    expect(anon.status).toBe(401);
    const list = await s.call('GET', '/stacks', undefined, { token: null });
    expect(list.status).toBe(401);
  });
});

describe('config import of installed stacks (08 §14, issue 16)', () => {
  it('a box restored from this one’s export has the same stacks: rows, files and .env with the generated secrets', async () => {
    const { importBody } = await import('@appliance/archive-preview/test-support');
    const { rawRequest } = await import('../../../test-support/config-archive.ts');
    expect(
      (
        await call('PUT', '/settings', {
          hostname: 'apps-a',
          timezone: 'UTC',
          backupPassphrase: 'apps passphrase 1',
        })
      ).status,
    ).toBe(200);
    // immich (generated DB_PASSWORD) was installed above; one more from the lab source.
    expect((await call('POST', '/templates/porty/install', { name: 'porty-export' })).status).toBe(201);
    const exported = await rawRequest({ socket: s.socket }, 'POST', '/config/export', Buffer.alloc(0));
    expect(exported.status).toBe(200);
    const b = await startSandbox({ admin: false });
    try {
      const body = importBody(exported.body, {
        confirmation: 'RESTORE apps-a',
        passphrase: 'apps passphrase 1',
      });
      const r = await rawRequest({ socket: b.socket }, 'POST', '/config/import', body.body, {
        'content-type': body.contentType,
      });
      expect(r.status, r.body.toString()).toBe(200);
      expect(r.json().secrets).toEqual({ status: 'opened', identity: 'opened', stacks: [] });
      const rows = (x: Sandbox) => JSON.parse(x.dumpDatabase()).stacks;
      expect(rows(b)).toEqual(rows(s));
      const bStacks = path.join(b.root, 'var/lib/appliance/stacks');
      const names = fs
        .readdirSync(stacksDir())
        .filter((n) => fs.existsSync(path.join(stacksDir(), n, 'docker-compose.yml')));
      expect(names).toContain('immich');
      for (const name of names) {
        for (const file of ['docker-compose.yml', 'meta.json', '.env']) {
          const mine = path.join(stacksDir(), name, file);
          if (!fs.existsSync(mine)) continue;
          const theirs = path.join(bStacks, name, file);
          expect(fs.readFileSync(theirs), `${name}/${file}`).toEqual(fs.readFileSync(mine));
          expect(fs.statSync(theirs).mode & 0o777, `${name}/${file}`).toBe(fs.statSync(mine).mode & 0o777);
        }
      }
      // The generated secret opens under B's (adopted) key, like on A.
      const sealed = b.server.ctx.sqlite.prepare("select env from stacks where name = 'immich'").get() as {
        env: Buffer;
      };
      expect(b.server.ctx.sealer.unsealText(sealed.env)).toContain(
        `DB_PASSWORD=${readEnv('immich')['DB_PASSWORD']}`,
      );
    } finally {
      await b.close();
    }
  }, 120_000);
});
