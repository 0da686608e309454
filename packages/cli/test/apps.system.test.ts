/**
 * `appliance apps …` against a real server and a private dockerd (issue 35): list, show, start,
 * logs, stop, restart, update, remove with its typed phrase; a refusal exits 1 with the API's
 * code, a usage error exits 2; --json equals the API's answer.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { type PrivateDockerd, requirePrerequisites, startPrivateDockerd } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance, CLI } from './support.ts';

let s: Sandbox;
let dockerd: PrivateDockerd;
const previousDockerHost = process.env['DOCKER_HOST'];
const cli = (...args: string[]) => appliance([...args, '--socket', s.socket]);
const api = async (p: string) => (await s.call('GET', p, undefined, { via: 'unix' })).body;
const running = async () =>
  (await dockerd.docker(['ps', '-q', '--filter', 'label=com.docker.compose.project=web'])).stdout.trim() !==
  '';

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'docker-compose'] });
  dockerd = await startPrivateDockerd();
  process.env['DOCKER_HOST'] = dockerd.host;
  s = await startSandbox({ config: { logLevel: 'silent' } });
  const r = await s.call('POST', '/stacks', {
    name: 'web',
    compose: `services:
  app:
    image: ${dockerd.busyboxImage}
    command: ["sh", "-c", "echo app is up; exec sleep 3600"]
    network_mode: none
    stop_grace_period: 1s
`,
  });
  expect(r.status, r.text).toBe(201);
}, 180_000);

afterAll(async () => {
  await s?.close();
  await dockerd?.stop();
  if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = previousDockerHost;
}, 120_000);

describe('appliance apps', () => {
  it('list and show a stack never started; --json is the API’s answer', async () => {
    const r = await cli('apps', 'list');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/web +not_created +app/);
    expect(JSON.parse((await cli('apps', 'list', '--json')).stdout)).toEqual(await api('/stacks'));
    const show = await cli('apps', 'show', 'web');
    expect(show.stdout).toMatch(/^stack: +web\nstatus: +not_created\n/);
    expect(show.stdout).toMatch(/app +not created/);
    const missing = await cli('apps', 'show', 'nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^stack_not_found: There is no stack nope/);
  });

  it('start follows the job to its end; logs print the output; stop and restart', async () => {
    const r = await cli('apps', 'start', 'web');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('The stack web is running (running).\n');
    expect(r.stderr).toMatch(/stack\.start stacks\/web: .*succeeded/);
    expect(await running()).toBe(true);
    expect((await cli('apps', 'show', 'web')).stdout).toMatch(
      /web_app_1: running · appliance-lab\/busybox:latest/,
    );
    const logs = await cli('apps', 'logs', 'web', '--tail', '5');
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d app \| app is up\n$/);
    expect((await cli('apps', 'logs', 'web', '--tail', 'x')).code).toBe(2);
    // -f: the line arrives over server-sent events; Ctrl-C ends the command
    const follow = spawn(
      process.execPath,
      ['--conditions=@appliance/source', CLI, 'apps', 'logs', 'web', '-f', '--socket', s.socket],
      {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: os.tmpdir() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let followed = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line followed: ${followed}`)), 60_000);
      follow.stdout.on('data', (d: Buffer) => {
        followed += d;
        if (followed.includes('app is up')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const code = new Promise((r) => follow.once('close', r));
    follow.kill('SIGINT');
    expect(await code).toBe(0);
    expect(followed).toMatch(/ app \| app is up\n/);
    const stop = await cli('apps', 'stop', 'web');
    expect(stop.stdout).toBe('The stack web is stopped (stopped).\n');
    expect(await running()).toBe(false);
    expect((await cli('apps', 'restart', 'web')).code).toBe(0);
    expect(await running()).toBe(true);
  });

  it('update with a local image: nothing to pull is a failure named by the API', async () => {
    const r = await cli('apps', 'update', 'web', '--health-timeout', '10');
    // the lab image is local only: compose cannot pull it, and the job says so
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/compose_failed: The compose tool could not pull the images of the stack web/);
    expect((await cli('apps', 'update', 'web', '--health-timeout', 'soon')).code).toBe(2);
  });

  it('remove: without a terminal the phrase is required (2); a wrong one is refused (1); then removed', async () => {
    expect((await cli('apps', 'remove', 'web')).code).toBe(2);
    const wrong = await cli('apps', 'remove', 'web', '--confirm', 'DELETE Web');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^confirmation_mismatch: /);
    expect(await running()).toBe(true);
    const r = await cli('apps', 'remove', 'web', '--confirm', 'DELETE web');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Removed the stack web.\n');
    expect(await running()).toBe(false);
    expect(fs.existsSync(path.join(s.root, 'var/lib/appliance/stacks/web'))).toBe(false);
    expect((await api('/stacks')).stacks).toEqual([]);
  });
});
