/**
 * Proof by use (issue 33 item 4): a template installed from a catalog source and its stack started,
 * stopped and removed as jobs, with @appliance/template-installer alone: the job runner of
 * @appliance/jobs on in-memory ports, the in-memory stores of this package's test support, real
 * files, the real compose tool and a private dockerd. No @appliance/api-server anywhere.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner, createHostPaths, type HostPaths } from '@appliance/common';
import { JobRunner } from '@appliance/jobs';
import { nodeTimers, procProcesses, systemClock } from '@appliance/jobs/node';
import { memoryPorts } from '@appliance/jobs/testing';
import {
  freeLoopbackPort,
  type PrivateDockerd,
  requirePrerequisites,
  startPrivateDockerd,
} from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalog } from '../node/catalog.ts';
import { createComposeTool, toolEnvironment } from '../node/compose-tool.ts';
import { createDockerEngine, engineSocket } from '../node/docker-engine.ts';
import { Installer } from '../node/installer.ts';
import { createLocks, createMemoryStackStore } from '../node/stack-store.ts';
import { removePhrase } from '../stacks/core/confirm.ts';
import { createStacksDeps } from '../stacks/node/wiring.ts';
import { addSource } from '../sources/operations.ts';
import { memorySourcesDeps, memoryStackJobPorts } from '../test-support/index.ts';
import { STACK_JOB_KINDS, STACK_JOBS } from './definitions.ts';
import { stackJobImplementation } from './stack-jobs.ts';

let dockerd: PrivateDockerd;
let root: string;
let paths: HostPaths;

const template = (image: string, port: number) => `services:
  web:
    image: ${image}
    stop_grace_period: 1s
    command: ["sh", "-c", "mkdir -p /www && echo hello alone > /www/index.html && exec httpd -f -p 80 -h /www"]
    ports:
      - "127.0.0.1:\${WEBUI_PORT}:80"
x-service:
  schema: 1
  id: alone
  revision: 1
  title: Alone
  categories: [testing]
  docs: https://example.org/alone
  inputs:
    WEBUI_PORT: {kind: port, default: ${port}, label: Web UI port}
`;

async function fetchText(port: number): Promise<string | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(3000) });
    return await r.text();
  } catch {
    return null;
  }
}

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'docker-compose'] });
  dockerd = await startPrivateDockerd();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'alone-'));
  fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
  fs.writeFileSync(path.join(root, 'etc/timezone'), 'Etc/UTC\n');
  fs.symlinkSync('/proc', path.join(root, 'proc'));
  paths = createHostPaths({ root, hostRoot: root });
}, 180_000);

afterAll(async () => {
  await dockerd?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
}, 60_000);

describe('@appliance/template-installer without the server', () => {
  it('adds a source, installs its template, and starts, stops and removes the stack as jobs', async () => {
    const env = { ...process.env, DOCKER_HOST: dockerd.host };
    const runner = createCommandRunner();
    const port = await freeLoopbackPort();

    // 1. A directory catalog source holding one template.
    const sources = memorySourcesDeps(paths.catalogDir);
    const view = await addSource(sources, { id: 'lab', kind: 'directory' });
    expect(view).toMatchObject({ id: 'lab', position: 1, templateCount: 0, error: null });
    fs.mkdirSync(path.join(paths.catalogDir, 'lab/alone'));
    fs.writeFileSync(
      path.join(paths.catalogDir, 'lab/alone/compose.yaml'),
      template(dockerd.busyboxImage, port),
    );

    // 2. The installer writes the stack's files and row (nothing runs yet).
    const stacks = createMemoryStackStore();
    const locks = createLocks();
    const tool = createComposeTool(runner, env);
    const installer = new Installer({
      paths,
      clock: systemClock,
      catalog: createCatalog({ catalogDir: paths.catalogDir, sources: () => sources.store.list() }),
      stacks,
      locks,
      compose: tool,
      engine: createDockerEngine({ socketPath: engineSocket(dockerd.host) }),
      environ: toolEnvironment(env),
      shares: async () => [],
    });
    const installed = await installer.install('alone', { name: 'alone' });
    expect(installed.stack).toMatchObject({ name: 'alone', template: { source: 'lab', id: 'alone' } });

    // 3. The stack jobs on a real job runner (in-memory store, real clock and timers).
    const ports = memoryStackJobPorts(
      createStacksDeps({
        runner,
        tool,
        stacks,
        locks,
        stacksDir: paths.stacksDir,
        appDataRoot: path.join(root, 'mnt/cache'),
        environ: () => env,
        updates: async () => new Map(),
        procDir: paths.procDir,
      }),
    );
    const jobs = new JobRunner({
      ...memoryPorts(),
      clock: systemClock,
      timers: nodeTimers,
      processes: procProcesses,
    });
    for (const kind of STACK_JOB_KINDS)
      jobs.register(
        STACK_JOBS[kind],
        stackJobImplementation(() => ports, kind),
      );
    const run = async (kind: 'start' | 'stop' | 'remove', extra = {}) =>
      (await jobs.start(STACK_JOBS[kind], { stack: 'alone', ...extra }, { target: 'alone', actor: null }))
        .completed;

    const started = await run('start');
    expect(started.state, JSON.stringify(started.error)).toBe('succeeded');
    expect(started.result).toMatchObject({ name: 'alone', status: 'running', manuallyEdited: false });
    let text: string | null = null;
    for (let i = 0; i < 100 && text === null; i += 1) {
      text = await fetchText(port);
      if (text === null) await new Promise((r) => setTimeout(r, 200));
    }
    expect(text).toBe('hello alone\n');

    const stopped = await run('stop');
    expect(stopped.state, JSON.stringify(stopped.error)).toBe('succeeded');
    expect(stopped.result).toMatchObject({ status: 'stopped' });
    expect(await fetchText(port)).toBeNull();

    const removed = await run('remove', { confirm: removePhrase('alone') });
    expect(removed.state, JSON.stringify(removed.error)).toBe('succeeded');
    expect(await stacks.get('alone')).toBeNull();
    expect(fs.existsSync(path.join(paths.stacksDir, 'alone'))).toBe(false);
    expect(ports.forgotten).toEqual([path.join(paths.stacksDir, 'alone', 'docker-compose.yml')]);
    const left = await dockerd.docker(['ps', '-aq', '--filter', 'label=com.docker.compose.project=alone']);
    expect(left.stdout.trim()).toBe('');
  }, 300_000);
});
