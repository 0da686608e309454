/**
 * The container watchers through the real server, a private dockerd and Debian's docker-registry on
 * loopback: a stack (created through the API, started with docker-compose) whose container's health
 * check fails on an image built locally from busybox (container_unhealthy), and an update pushed to
 * the registry (container_update_available); each delivered once to a routed webhook and SMTP
 * receiver and cleared when the fact ends (the check passes again; the stack runs the new image).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  type LocalRegistry,
  type PrivateDockerd,
  requirePrerequisites,
  startLocalRegistry,
  startPrivateDockerd,
} from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf, labHostRoot, type Receivers, routedReceivers } from '../../../test-support/watchers.ts';

const run = promisify(execFile);

describe('container watchers (private dockerd, local registry)', () => {
  let dockerd: PrivateDockerd;
  let registry: LocalRegistry;
  let s: Sandbox;
  let rx: Receivers;
  let hostRoot: ReturnType<typeof labHostRoot>;
  let image = '';
  const previousDockerHost = process.env['DOCKER_HOST'];
  const health = async () => (await s.call('GET', '/health')).body;
  const stackDir = () => path.join(s.root, 'var/lib/appliance/stacks/sick');
  const compose = (...args: string[]) =>
    run(
      'docker-compose',
      [
        '--project-name',
        'sick',
        '--project-directory',
        stackDir(),
        '-f',
        path.join(stackDir(), 'docker-compose.yml'),
        ...args,
      ],
      { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', DOCKER_HOST: dockerd.host } },
    );
  const container = async () =>
    (await dockerd.docker(['ps', '-q', '--filter', 'label=com.docker.compose.project=sick'])).stdout.trim();
  const waitHealth = async (want: string) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const id = await container();
      const state = id
        ? (await dockerd.docker(['inspect', '-f', '{{.State.Health.Status}}', id])).stdout.trim()
        : 'none';
      if (state === want) return;
      if (Date.now() > end) throw new Error(`the container stayed ${state}, not ${want}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    await requirePrerequisites({
      root: true,
      tools: ['dockerd', 'docker', 'docker-compose', 'docker-registry'],
    });
    dockerd = await startPrivateDockerd();
    registry = await startLocalRegistry();
    process.env['DOCKER_HOST'] = dockerd.host;
    // the app's image: the lab busybox (imported from busybox-static), pushed to the registry
    image = `${registry.host}/lab/app:latest`;
    await dockerd.docker(['tag', dockerd.busyboxImage, image]);
    await dockerd.docker(['push', image]);
    hostRoot = labHostRoot();
    s = await startSandbox({ hostRoot: hostRoot.dir });
    rx = await routedReceivers(s, ['container_unhealthy', 'container_update_available']);
    const created = await s.call('POST', '/stacks', {
      name: 'sick',
      compose: `services:
  app:
    image: ${image}
    command: ["sh", "-c", "echo failing > /state; exec sleep 3600"]
    network_mode: none
    healthcheck:
      test: ["CMD-SHELL", "echo \\"check says: $$(cat /state)\\"; [ \\"$$(cat /state)\\" = ok ]"]
      interval: 1s
      timeout: 2s
      retries: 1
`,
    });
    expect(created.status, created.text).toBe(201);
    await compose('up', '-d');
  }, 240_000);

  afterAll(async () => {
    if (dockerd && s) await compose('down', '-t', '1').catch(() => undefined);
    await s?.close();
    await rx?.close();
    await registry?.stop();
    await dockerd?.stop();
    if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
    else process.env['DOCKER_HOST'] = previousDockerHost;
    hostRoot?.remove();
  }, 120_000);

  it('a container whose health check fails: container_unhealthy once, with what the check said', async () => {
    await waitHealth('unhealthy');
    const status = await s.server.ctx.watchers.runOnce('containers');
    expect(status.error).toBeNull();
    const { webhook, mail } = await rx.waitFor('container_unhealthy');
    expect(webhook[0]!.title).toBe('Stack sick: container sick_app_1 is unhealthy');
    expect(webhook[0]!.message).toMatch(
      /^The container sick_app_1 of the stack sick \(service app\) is unhealthy: its health check failed \d+ times? in a row; the last check said: "check says: failing"/,
    );
    expect(mail[0]!.subject).toBe('[error] Stack sick: container sick_app_1 is unhealthy');
    for (let i = 0; i < 3; i++) await s.server.ctx.watchers.runOnce('containers');
    expect(alertsOf(s, 'container_unhealthy')).toHaveLength(1);
    expect((await health()).conditions).toEqual([
      expect.objectContaining({ key: 'container:sick/app', value: 'unhealthy', source: 'containers' }),
    ]);
  }, 60_000);

  it('the check passing again clears it', async () => {
    await dockerd.docker(['exec', await container(), 'sh', '-c', 'echo ok > /state']);
    await waitHealth('healthy');
    await s.server.ctx.watchers.runOnce('containers');
    expect((await health()).conditions).toEqual([]);
  }, 60_000);

  it('the registry holds what the container runs: no update', async () => {
    const status = await s.server.ctx.watchers.runOnce('images');
    expect(status.error).toBeNull();
    expect(status.notes).toEqual([]);
    expect((await health()).conditions).toEqual([]);
  }, 60_000);

  it('a newer image pushed to the registry: container_update_available once; running it clears', async () => {
    // a new image for the same reference, built locally: a commit of a container of the old one
    await dockerd.docker([
      'run',
      '--name',
      'mk',
      '--network',
      'none',
      image,
      'sh',
      '-c',
      'echo 2 > /version',
    ]);
    await dockerd.docker(['commit', 'mk', image]);
    await dockerd.docker(['rm', 'mk']);
    const pushed = await dockerd.docker(['push', image]);
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(pushed.stdout)![1]!;
    await s.server.ctx.watchers.runOnce('images');
    const { webhook, mail } = await rx.waitFor('container_update_available');
    expect(webhook[0]!.title).toBe(`Stack sick: a newer image of ${image}`);
    expect(webhook[0]!.message).toContain(
      `the registry has ${image} as sha256:${digest.slice(7, 19)}, the container runs sha256:`,
    );
    expect(mail[0]!.subject).toBe(`[info] Stack sick: a newer image of ${image}`);
    for (let i = 0; i < 3; i++) await s.server.ctx.watchers.runOnce('images');
    expect(alertsOf(s, 'container_update_available')).toHaveLength(1);
    expect((await health()).conditions).toEqual([
      expect.objectContaining({ key: 'image:sick/app', value: `sha256:${digest.slice(7, 19)}` }),
    ]);
    // the stack recreated on the new image (the local tag already points to it)
    await compose('up', '-d');
    await s.server.ctx.watchers.runOnce('images');
    expect((await health()).conditions.filter((c: { key: string }) => c.key.startsWith('image:'))).toEqual(
      [],
    );
  }, 120_000);

  it('Docker unreachable: the watcher fails, says so once in the log and in GET /health', async () => {
    process.env['DOCKER_HOST'] = `unix://${path.join(hostRoot.dir, 'no-docker.sock')}`;
    try {
      for (let i = 0; i < 3; i++) await s.server.ctx.watchers.runOnce('containers');
      const status = (await health()).watchers.find((w: { name: string }) => w.name === 'containers');
      expect(status.error.message).toContain('the Docker Engine is not reachable');
      expect(s.logs.filter((l) => l.includes('"watcher failed"') && l.includes('"containers"'))).toHaveLength(
        1,
      );
    } finally {
      process.env['DOCKER_HOST'] = dockerd.host;
    }
    await s.server.ctx.watchers.runOnce('containers');
    expect((await health()).watchers.find((w: { name: string }) => w.name === 'containers').error).toBeNull();
    expect(fs.existsSync(stackDir())).toBe(true);
  }, 60_000);
});
