/**
 * The installer with real files, the real compose tool and a real private dockerd; the stack rows
 * live in the in-memory store (the server's SQLite store is tested through the server).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner, createHostPaths, fixedClock, type HostPaths } from '@appliance/common';
import { type PrivateDockerd, requirePrerequisites, startPrivateDockerd } from '@appliance/lab';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCatalog, syncBuiltinCatalog } from './catalog.ts';
import { createComposeTool, toolEnvironment } from './compose-tool.ts';
import { createDockerEngine, engineSocket } from './docker-engine.ts';
import { type AuditRecord, Installer, undoPendingStacks } from './installer.ts';
import { createLocks, createMemoryStackStore } from './stack-store.ts';

let dockerd: PrivateDockerd;
let root: string;
let paths: HostPaths;
let store: ReturnType<typeof createMemoryStackStore>;
let installer: Installer;
let audits: AuditRecord[];
const tool = createComposeTool(createCommandRunner(), process.env);

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'docker-compose'] });
  dockerd = await startPrivateDockerd();
}, 180_000);
afterAll(async () => {
  await dockerd?.stop();
}, 60_000);

beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'installer-'));
  fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
  fs.writeFileSync(path.join(root, 'etc/timezone'), 'Europe/Vienna\n');
  fs.symlinkSync('/proc', path.join(root, 'proc'));
  paths = createHostPaths({ root, hostRoot: root });
  await syncBuiltinCatalog(paths.catalogDir);
  store = createMemoryStackStore();
  audits = [];
  installer = new Installer({
    paths,
    clock: fixedClock('2026-09-30T12:00:00.123Z'),
    catalog: createCatalog({ catalogDir: paths.catalogDir, sources: async () => [] }),
    stacks: store,
    locks: createLocks(),
    compose: tool,
    engine: createDockerEngine({ socketPath: engineSocket(dockerd.host) }),
    environ: toolEnvironment(process.env),
    shares: async () => ['media'],
    audit: (r) => {
      audits.push(r);
    },
  });
  return () => fs.rmSync(root, { recursive: true, force: true });
});

const dir = (name: string) => path.join(paths.stacksDir, name);

describe('install', () => {
  it('writes meta.json in the documented form and audits', async () => {
    const r = await installer.install('trilium', {});
    expect(r.stack).toEqual({
      name: 'trilium',
      template: { source: 'builtin', id: 'trilium', revision: 1 },
      installedAt: '2026-09-30T12:00:00Z',
      manuallyEdited: false,
      directory: '/var/lib/appliance/stacks/trilium',
    });
    expect(fs.readFileSync(path.join(dir('trilium'), 'meta.json'), 'utf8')).toBe(
      '{\n  "name": "trilium",\n  "template": {\n    "source": "builtin",\n    "id": "trilium",\n    "revision": 1\n  },\n  "installedAt": "2026-09-30T12:00:00Z"\n}\n',
    );
    expect(fs.statSync(dir('trilium')).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(dir('trilium'), 'docker-compose.yml')).mode & 0o777).toBe(0o644);
    expect(audits).toEqual([{ operation: 'template.install', target: 'stacks/trilium', outcome: 'ok' }]);
    expect((await store.get('trilium'))?.pending).toBe(false);
  });
  it('refuses a symlinked stack folder or stacks root (stack_dir_unsafe)', async () => {
    fs.mkdirSync(paths.stacksDir, { recursive: true });
    fs.symlinkSync('/tmp', dir('trilium'));
    await expect(installer.install('trilium', {})).rejects.toMatchObject({
      status: 409,
      code: 'stack_dir_unsafe',
    });
    expect(await store.list()).toEqual([]);
    fs.rmSync(paths.stacksDir, { recursive: true });
    fs.symlinkSync('/tmp', paths.stacksDir);
    await expect(installer.install('trilium', {})).rejects.toMatchObject({ code: 'stack_dir_unsafe' });
  });
  it('reports each step in order once every check passed; a refusal reports none', async () => {
    const seen: string[] = [];
    const onStep = (step: string, index: number, count: number) => {
      // what is on disk when the step starts shows the step is the real one
      seen.push(
        `${index + 1}/${count} ${step} files=${fs.existsSync(dir('trilium')) ? fs.readdirSync(dir('trilium')).length : 0}`,
      );
    };
    await installer.install('trilium', {}, { onStep });
    expect(seen).toEqual([
      '1/4 record files=0',
      '2/4 write_files files=0',
      '3/4 compose_check files=3',
      '4/4 finish files=3',
    ]);
    seen.length = 0;
    await expect(installer.install('trilium', {}, { onStep })).rejects.toMatchObject({
      code: 'stack_exists',
    });
    await expect(
      installer.install('trilium', { name: 'other', values: { COLOUR: 'red' } }, { onStep }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(installer.install('nope', {}, { onStep })).rejects.toMatchObject({
      code: 'template_not_found',
    });
    expect(seen).toEqual([]);
    // a failed config check reported the steps it reached
    await expect(
      installer.createStack({ name: 'bad', compose: 'services:\n  a: 1\n' }, { onStep }),
    ).rejects.toMatchObject({ code: 'invalid_stack' });
    expect(seen.map((s) => s.split(' ')[1])).toEqual(['record', 'write_files', 'compose_check']);
  });
  it('adopts an existing folder without a Compose file, keeping its files', async () => {
    fs.mkdirSync(path.join(dir('trilium'), 'data'), { recursive: true });
    fs.writeFileSync(path.join(dir('trilium'), 'notes.txt'), 'keep');
    fs.writeFileSync(path.join(dir('trilium'), '.env'), 'OLD=1\n');
    await installer.install('trilium', {});
    expect(fs.readFileSync(path.join(dir('trilium'), 'notes.txt'), 'utf8')).toBe('keep');
    expect(fs.readFileSync(path.join(dir('trilium'), '.env'), 'utf8')).not.toContain('OLD=1');
  });
  it('a failing config check removes files, folder and row; an adopted folder stays', async () => {
    await expect(
      installer.createStack({ name: 'bad', compose: 'services:\n  a:\n    image: x\n    ports: "no"\n' }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'invalid_stack',
    });
    expect(fs.existsSync(dir('bad'))).toBe(false);
    expect(await store.list()).toEqual([]);
    fs.mkdirSync(dir('bad2'));
    fs.writeFileSync(path.join(dir('bad2'), 'keep'), '');
    await expect(
      installer.createStack({ name: 'bad2', compose: 'services:\n  a: 1\n' }),
    ).rejects.toMatchObject({ code: 'invalid_stack' });
    expect(fs.readdirSync(dir('bad2'))).toEqual(['keep']);
    expect(audits.map((a) => a.outcome)).toEqual(['invalid_stack', 'invalid_stack']);
  });
  it('an unreadable existing stack is 409 stack_unreadable', async () => {
    await installer.createStack({
      name: 'weird',
      compose: 'services:\n  a:\n    image: x\n    ports: ["${P?need P}:1"]\n',
      env: { P: '5' },
    });
    fs.writeFileSync(path.join(dir('weird'), '.env'), 'Q=1\n');
    await expect(installer.install('trilium', {})).rejects.toMatchObject({
      status: 409,
      code: 'stack_unreadable',
      details: { stack: 'weird' },
    });
    expect(fs.existsSync(dir('trilium'))).toBe(false);
  });
});

describe('preview', () => {
  it('writes nothing, reads a missing file from the row, and warns name_taken', async () => {
    const first = await installer.install('trilium', {});
    fs.rmSync(path.join(dir('trilium'), '.env'));
    const before = fs.readdirSync(dir('trilium')).sort();
    const p = await installer.preview('trilium', {});
    expect(fs.readdirSync(dir('trilium')).sort()).toEqual(before);
    expect(p.warnings.map((w) => w.class)).toEqual(['name_taken']);
    const port = p.inputs.find((i) => i.name === 'WEBUI_PORT')!;
    expect(port.requestedValue).toBe('8080');
    expect(port.value).not.toBe(first.plan.inputs.find((i) => i.name === 'WEBUI_PORT')!.value);
    expect(audits).toHaveLength(1);
  });
});

describe('ports of existing stacks', () => {
  it('sees a hand edit of a stack .env at once (same size, same second)', async () => {
    const first = await installer.install('trilium', {});
    const port = first.plan.inputs.find((i) => i.name === 'WEBUI_PORT')!.value!;
    const other = String(Number(port) + 7);
    expect(
      (await installer.preview('trilium', { name: 'b', values: { WEBUI_PORT: other } })).inputs.find(
        (i) => i.name === 'WEBUI_PORT',
      )!.requestedValue,
    ).toBeUndefined();
    const envFile = path.join(dir('trilium'), '.env');
    fs.writeFileSync(
      envFile,
      fs.readFileSync(envFile, 'utf8').replace(`WEBUI_PORT=${port}`, `WEBUI_PORT=${other}`),
    );
    const p = await installer.preview('trilium', { name: 'b', values: { WEBUI_PORT: other } });
    expect(p.inputs.find((i) => i.name === 'WEBUI_PORT')!.requestedValue).toBe(other);
  });
});

describe('startup', () => {
  it('undoes rows left pending by a crash', async () => {
    await store.insertPending(
      { name: 'crashed', template: null, compose: 'x', installedAt: '2026-01-01T00:00:00Z' },
      '',
    );
    fs.mkdirSync(dir('crashed'), { recursive: true });
    fs.writeFileSync(path.join(dir('crashed'), 'docker-compose.yml'), 'x');
    expect(await undoPendingStacks(paths, store)).toEqual(['crashed']);
    expect(fs.existsSync(dir('crashed'))).toBe(false);
    expect(await store.list()).toEqual([]);
  });
});
