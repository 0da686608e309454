import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeEnvFile } from './env-file.ts';
import { buildPlan, type HostFacts, installValues, type PlanRequest } from './plan.ts';
import { PRIVILEGE_DESCRIPTIONS } from './privileges.ts';
import { parseTemplate, type Template } from './template.ts';

const catalogDir = path.resolve(import.meta.dirname, '../../catalog');
const builtin = (id: string): Template => {
  const r = parseTemplate(fs.readFileSync(path.join(catalogDir, id, 'compose.yaml')), {
    source: 'builtin',
    id,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.template;
};
const inline = (text: string, id = 'demo'): Template => {
  const r = parseTemplate(text, { source: 'builtin', id });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.template;
};

/** The acceptance defaults of 02 §16. */
const facts = (over: Partial<HostFacts> = {}): HostFacts => ({
  flavour: 'v2',
  takenPorts: new Set(),
  shares: ['media', 'downloads'],
  renderDevices: ['/dev/dri/renderD128'],
  renderGroup: 44,
  hostZone: 'Europe/Vienna',
  networks: ['bridge', 'host', 'none'],
  ...over,
});
const plan = (t: Template, req: PlanRequest = {}, f = facts(), mode: 'preview' | 'install' = 'preview') =>
  buildPlan(t, req, f, mode);
const err = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    const a = e as { status: number; code: string; details?: Record<string, unknown>; message: string };
    return { status: a.status, code: a.code, details: a.details, message: a.message };
  }
  throw new Error('expected an error');
};

describe('scenario 1: jellyfin with defaults', () => {
  it('keeps the template bytes and resolves every input', () => {
    const t = builtin('jellyfin');
    const r = plan(t, {}, facts(), 'install');
    expect(r.plan.compose).toBe(t.text);
    expect(r.plan.template).toEqual({ source: 'builtin', id: 'jellyfin', revision: 1 });
    expect(encodeEnvFile(installValues(r, () => new Uint8Array(24)))).toBe(
      'APPDATA=/mnt/cache/appdata\nMEDIA=/mnt/user/media\nTRANSCODE_GPU=\nTZ=Europe/Vienna\nWEBUI_PORT=8096\n',
    );
    expect(r.plan.inputs.map((i) => i.name)).toEqual([
      'APPDATA',
      'MEDIA',
      'TRANSCODE_GPU',
      'TZ',
      'WEBUI_PORT',
    ]);
    expect(r.plan.inputs.find((i) => i.name === 'MEDIA')).toMatchObject({
      kind: 'path',
      role: 'media',
      required: true,
      value: '/mnt/user/media',
      suggestions: ['/mnt/user/downloads', '/mnt/user/media'],
    });
    expect(r.plan.inputs.find((i) => i.name === 'TRANSCODE_GPU')).toMatchObject({
      value: '',
      suggestions: ['/dev/dri/renderD128'],
    });
    expect(r.plan.privileges).toEqual([]);
  });
});

describe('ports', () => {
  it('scenario 2: a taken port moves to the lowest free one above it', () => {
    const r = plan(builtin('jellyfin'), {}, facts({ takenPorts: new Set([8096, 8097]) }));
    expect(r.plan.inputs.find((i) => i.name === 'WEBUI_PORT')).toMatchObject({
      value: '8098',
      requestedValue: '8096',
    });
  });
  it('two port inputs of one install never collide (byte order of name)', () => {
    const t = inline(`services:
  app:
    image: busybox:1.37.0
    ports: ["\${ADMIN_PORT}:1", "\${HTTP_PORT}:2"]
x-service: {schema: 1, id: demo, revision: 1, title: D, categories: [t], docs: "https://e.org/", inputs: {HTTP_PORT: {kind: port, default: 8000}, ADMIN_PORT: {kind: port, default: 8000}}}
`);
    const r = plan(t);
    expect(r.plan.inputs.map((i) => [i.name, i.value, i.requestedValue])).toEqual([
      ['ADMIN_PORT', '8000', undefined],
      ['HTTP_PORT', '8001', '8000'],
    ]);
  });
  it('a typed port moves too; nothing free above → 409 no_free_port', () => {
    const r = plan(
      builtin('trilium'),
      { values: { WEBUI_PORT: '9000' } },
      facts({ takenPorts: new Set([9000]) }),
    );
    expect(r.plan.inputs.find((i) => i.name === 'WEBUI_PORT')).toMatchObject({
      value: '9001',
      requestedValue: '9000',
    });
    const e = err(() =>
      plan(builtin('trilium'), { values: { WEBUI_PORT: '65535' } }, facts({ takenPorts: new Set([65535]) })),
    );
    expect(e).toMatchObject({
      status: 409,
      code: 'no_free_port',
      details: { input: 'WEBUI_PORT', requested: 65535 },
    });
  });
  it('refuses 0, 65536 and non-numbers', () => {
    for (const bad of ['0', '65536', '80a', '08080', ' 80', '-1']) {
      const e = err(() => plan(builtin('trilium'), { values: { WEBUI_PORT: bad } }));
      expect(e).toMatchObject({
        status: 400,
        code: 'invalid_template_input',
        details: { input: 'WEBUI_PORT' },
      });
      expect(e.message).toBe('WEBUI_PORT must be a port from 1 to 65535');
    }
  });
  it('port moves do not change the digest', () => {
    const a = plan(builtin('jellyfin')).plan.planDigest;
    const b = plan(builtin('jellyfin'), {}, facts({ takenPorts: new Set([8096]) })).plan.planDigest;
    expect(a).toBe(b);
  });
});

describe('secrets (scenario 5)', () => {
  it('are generated at install only, never in the plan', () => {
    const t = builtin('immich');
    const p = plan(t);
    const input = p.plan.inputs.find((i) => i.name === 'DB_PASSWORD')!;
    expect(input).toEqual({
      name: 'DB_PASSWORD',
      kind: 'secret',
      label: 'Database password',
      generated: true,
      required: false,
    });
    let n = 0;
    const values = installValues(plan(t, {}, facts(), 'install'), (len) => new Uint8Array(len).fill(++n));
    expect(values['DB_PASSWORD']).toMatch(/^[0-9a-f]{48}$/);
    expect(JSON.stringify(p.plan)).not.toContain(values['DB_PASSWORD']);
  });
  it('a typed secret is kept as typed and not shown', () => {
    const r = plan(builtin('vaultwarden'), { values: { ADMIN_TOKEN: 'my secret' } }, facts(), 'install');
    expect(installValues(r, () => new Uint8Array(24))['ADMIN_TOKEN']).toBe('my secret');
    expect(r.plan.inputs.find((i) => i.name === 'ADMIN_TOKEN')).toEqual({
      name: 'ADMIN_TOKEN',
      kind: 'secret',
      label: 'Admin page token',
      generated: false,
      required: false,
    });
  });
});

describe('GPU (scenarios 6 and 7)', () => {
  it('adds the device and the group to every service, keeping comments', () => {
    const t = builtin('jellyfin');
    const r = plan(t, { values: { TRANSCODE_GPU: '/dev/dri/renderD128' } });
    expect(r.plan.compose).toContain(
      '    devices:\n      - "/dev/dri/renderD128:/dev/dri/renderD128"\n    group_add:\n      - "44"\n',
    );
    expect(r.plan.compose).toContain('# Jellyfin media server.');
    expect(r.plan.compose).toContain('x-service:');
    expect(r.plan.privileges.map((p) => [p.kind, p.detail])).toEqual([
      ['group_add', '44'],
      ['host_device', '/dev/dri/renderD128'],
    ]);
    expect(r.plan.planDigest).not.toBe(plan(t).plan.planDigest);
    expect(plan(t, { values: { TRANSCODE_GPU: '/dev/dri/renderD128' } }).plan.compose).toBe(r.plan.compose);
  });
  it('edits every service of a multi-service template, without duplicates', () => {
    const t = inline(`services:
  web:
    image: busybox:1.37.0
    group_add: ["44"]
  worker:
    image: busybox:1.37.0
    devices: ["/dev/fuse:/dev/fuse"]
x-service: {schema: 1, id: demo, revision: 1, title: D, categories: [t], docs: "https://e.org/", inputs: {G: {kind: device, role: gpu}}}
`);
    const r = plan(t, { values: { G: '/dev/dri/renderD128' } });
    expect(r.plan.compose).toContain(
      '  web:\n    image: busybox:1.37.0\n    group_add: [ "44" ]\n    devices:\n      - "/dev/dri/renderD128:/dev/dri/renderD128"\n',
    );
    expect(r.plan.compose).toContain(
      'devices: [ "/dev/fuse:/dev/fuse", "/dev/dri/renderD128:/dev/dri/renderD128" ]',
    );
    expect(r.plan.privileges.map((p) => `${p.service}:${p.kind}:${p.detail}`)).toEqual([
      'web:group_add:44',
      'web:host_device:/dev/dri/renderD128',
      'worker:group_add:44',
      'worker:host_device:/dev/fuse, /dev/dri/renderD128',
    ]);
  });
  it('409 gpu_unavailable without a render group', () => {
    const e = err(() =>
      plan(
        builtin('jellyfin'),
        { values: { TRANSCODE_GPU: '/dev/dri/renderD128' } },
        facts({ renderGroup: null }),
      ),
    );
    expect(e).toMatchObject({ status: 409, code: 'gpu_unavailable', details: { input: 'TRANSCODE_GPU' } });
  });
  it('refuses a device that is not a render device', () => {
    const e = err(() => plan(builtin('jellyfin'), { values: { TRANSCODE_GPU: '/dev/sda' } }));
    expect(e.message).toBe(
      "TRANSCODE_GPU: /dev/sda is not one of the host's GPU render devices: /dev/dri/renderD128",
    );
  });
  it('422 when devices is not a list', () => {
    const t = inline(`services:
  app:
    image: busybox:1.37.0
    devices: "/dev/x"
x-service: {schema: 1, id: demo, revision: 1, title: D, categories: [t], docs: "https://e.org/", inputs: {G: {kind: device, role: gpu}}}
`);
    expect(err(() => plan(t, { values: { G: '/dev/dri/renderD128' } }))).toMatchObject({
      status: 422,
      code: 'template_invalid',
    });
  });
});

describe('scenario 8: the privilege showcase', () => {
  it('reports the 13 kinds in order with the exact descriptions', () => {
    const r = plan(builtin('privilege-showcase'));
    expect(r.plan.privileges.map((p) => p.kind)).toEqual(Object.keys(PRIVILEGE_DESCRIPTIONS));
    for (const p of r.plan.privileges) expect(p.description).toBe(PRIVILEGE_DESCRIPTIONS[p.kind]);
    const detail = Object.fromEntries(r.plan.privileges.map((p) => [p.kind, p.detail]));
    expect(detail).toMatchObject({
      device_cgroup_rules: 'c 189:* rmw',
      added_capabilities: 'SYS_ADMIN, NET_ADMIN',
      confinement_disabled: 'seccomp:unconfined, apparmor:unconfined',
      group_add: 'video',
      container_runtime: 'nvidia',
      gpu_reservation: 'driver nvidia, count 1, capabilities gpu',
      host_device: '/dev/fuse',
      docker_socket: '/var/run/docker.sock',
      host_path: '/etc/hostname',
    });
  });
  it('reports a bind source as the path it names, normalised (/mnt/user/../../etc is /etc)', () => {
    const t = inline(`services:
  app:
    image: busybox:1.37.0
    volumes:
      - /mnt/user/../../etc:/host-etc
      - /mnt/user//media/:/media
      - /mnt/user/../etc/:/mnt-etc
      - /var//run/./docker.sock:/var/run/docker.sock
x-service: {schema: 1, id: demo, revision: 1, title: D, categories: [t], docs: "https://e.org/", inputs: {}}
`);
    expect(plan(t).plan.privileges.map((p) => [p.kind, p.detail])).toEqual([
      ['docker_socket', '/var/run/docker.sock'],
      ['host_path', '/etc'],
      ['host_path', '/mnt/etc'],
    ]);
  });
  it('a path value outside the data layout is a host_path and changes the digest', () => {
    const t = builtin('trilium');
    const r = plan(t, { values: { APPDATA: '/srv/apps/' } });
    expect(r.plan.privileges).toEqual([
      {
        kind: 'host_path',
        service: 'trilium',
        description: PRIVILEGE_DESCRIPTIONS.host_path,
        detail: '/srv/apps/trilium',
      },
    ]);
    expect(r.plan.planDigest).not.toBe(plan(t).plan.planDigest);
  });
});

describe('settings and networkMode', () => {
  it('applies restart, cpus and memory', () => {
    const r = plan(builtin('trilium'), { restart: 'no', cpus: 1.5, memoryMiB: 512 });
    expect(r.plan.compose).toContain('restart: "no"');
    expect(r.plan.compose).toContain('cpus: 1.5');
    expect(r.plan.compose).toContain('mem_limit: "512m"');
  });
  it('refuses networkMode, cpus and memoryMiB on a multi-service template; restart fits any', () => {
    expect(err(() => plan(builtin('immich'), { cpus: 1 }))).toMatchObject({
      code: 'invalid_template_input',
      details: { input: 'cpus' },
    });
    expect(err(() => plan(builtin('immich'), { networkMode: 'host', cpus: 1 }))).toMatchObject({
      details: { input: 'networkMode' },
    });
    expect(
      plan(builtin('immich'), { restart: 'always' }).plan.compose.match(/restart: "always"/g),
    ).toHaveLength(4);
  });
  it('scenario 10: a missing named network is a warning with the create command', () => {
    const r = plan(builtin('trilium'), { networkMode: 'iot' });
    expect(r.plan.warnings).toEqual([
      {
        class: 'missing_network',
        message:
          'Docker has no network named iot; create it with "docker network create iot" before installing.',
        detail: 'iot',
        command: 'docker network create iot',
      },
    ]);
    expect(r.plan.compose).toContain('    networks:\n      iot: {}\n');
    expect(r.plan.compose).toContain('networks:\n  iot:\n    external: true\n');
    expect(r.missingNetwork).toBe('iot');
    expect(
      plan(builtin('trilium'), { networkMode: 'iot' }, facts({ networks: ['iot'] })).missingNetwork,
    ).toBeNull();
  });
  it('host networking with published ports warns ports_ignored', () => {
    const r = plan(builtin('trilium'), { networkMode: 'host' });
    expect(r.plan.warnings.map((w) => w.class)).toEqual(['ports_ignored']);
    expect(r.plan.privileges.map((p) => p.kind)).toEqual(['host_network']);
  });
});

describe('inputs', () => {
  it('unknown input → 400 with details.input (byte order)', () => {
    expect(err(() => plan(builtin('jellyfin'), { values: { ZZ: '1', AA: '2' } }))).toMatchObject({
      status: 400,
      code: 'invalid_template_input',
      details: { input: 'AA' },
    });
  });
  it('bad stack names → 400 invalid_stack_name', () => {
    for (const name of ['', 'Upper', '-x', 'a/b', '../x', 'x'.repeat(64)])
      expect(err(() => plan(builtin('jellyfin'), { name }))).toMatchObject({
        status: 400,
        code: 'invalid_stack_name',
        details: { name },
      });
  });
  it('text rules: newline, NUL, quotes are fine, trailing backslash, v1 dollar', () => {
    const t = builtin('wireguard');
    for (const v of ['a\nb', 'a\u0000b', 'a\\', 'a\u007f'])
      expect(err(() => plan(t, { values: { PEERS: v } }))).toMatchObject({
        code: 'invalid_template_input',
        details: { input: 'PEERS' },
      });
    expect(plan(t, { values: { PEERS: 'say "hi"\there' } }).values.get('PEERS')).toBe('say "hi"\there');
    expect(plan(t, { values: { PEERS: 'a$b' } }).values.get('PEERS')).toBe('a$b');
    expect(err(() => plan(t, { values: { PEERS: 'a$b' } }, facts({ flavour: 'v1' })))).toMatchObject({
      details: { input: 'PEERS' },
    });
  });
  it('paths are normalised; relative or ":" paths refused', () => {
    const r = plan(builtin('trilium'), { values: { APPDATA: '/mnt/cache//apps/./x/../y/' } });
    expect(r.values.get('APPDATA')).toBe('/mnt/cache/apps/y');
    for (const bad of ['relative', '/a:b'])
      expect(err(() => plan(builtin('trilium'), { values: { APPDATA: bad } }))).toMatchObject({
        details: { input: 'APPDATA' },
      });
  });
  it('a required input without value: preview error, install 400', () => {
    const t = builtin('qbittorrent');
    const p = plan(t, {}, facts({ shares: [] }));
    expect(p.plan.inputs.find((i) => i.name === 'DOWNLOADS')).toMatchObject({
      error: 'DOWNLOADS needs a path',
      value: '',
    });
    expect(err(() => plan(t, {}, facts({ shares: [] }), 'install'))).toMatchObject({
      status: 400,
      details: { input: 'DOWNLOADS' },
    });
    expect(plan(t).values.get('DOWNLOADS')).toBe('/mnt/user/downloads');
  });
  it('time zones: host zone, else UTC; a bad one refused', () => {
    expect(plan(builtin('trilium')).values.has('TZ')).toBe(false);
    expect(plan(builtin('jellyfin'), {}, facts({ hostZone: null })).values.get('TZ')).toBe('UTC');
    expect(plan(builtin('jellyfin'), { values: { TZ: 'America/New_York' } }).values.get('TZ')).toBe(
      'America/New_York',
    );
    expect(err(() => plan(builtin('jellyfin'), { values: { TZ: 'Mars/Base' } }))).toMatchObject({
      details: { input: 'TZ' },
    });
  });
  it('privileged must read as a boolean once substituted', () => {
    const t = inline(`services:
  app:
    image: busybox:1.37.0
    privileged: "\${PRIV}"
x-service: {schema: 1, id: demo, revision: 1, title: D, categories: [t], docs: "https://e.org/", inputs: {PRIV: {kind: string, default: "no"}}}
`);
    expect(plan(t).plan.privileges).toEqual([]);
    expect(plan(t, { values: { PRIV: 'ON' } }).plan.privileges.map((p) => p.kind)).toEqual(['privileged']);
    expect(err(() => plan(t, { values: { PRIV: 'maybe' } }))).toMatchObject({
      code: 'invalid_template_input',
      details: { input: 'PRIV' },
    });
  });
});
