/** The Engine adapter against a real private dockerd (containers' published and configured ports, networks). */
import { type PrivateDockerd, requirePrerequisites, startPrivateDockerd } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerPorts, createDockerEngine, type DockerEngine, engineSocket } from './docker-engine.ts';

let dockerd: PrivateDockerd;
let engine: DockerEngine;

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker'] });
  dockerd = await startPrivateDockerd();
  engine = createDockerEngine({ socketPath: engineSocket(dockerd.host) });
}, 180_000);
afterAll(async () => {
  await dockerd?.stop();
}, 60_000);

describe('the Docker Engine adapter', () => {
  it('reads configured host ports of stopped containers, ranges expanded', async () => {
    await dockerd.docker([
      'create',
      '--name',
      'stopped-a',
      '-p',
      '41001:80',
      '-p',
      '41010-41012:90-92/udp',
      dockerd.busyboxImage,
      'true',
    ]);
    const ports = await containerPorts(engine, new Set());
    expect([...ports].sort()).toEqual([41001, 41010, 41011, 41012]);
  });
  it('reads the published ports of a running container', async () => {
    await dockerd.docker(['network', 'create', 'lab-net']);
    await dockerd.docker([
      'run',
      '-d',
      '--name',
      'running-b',
      '--network',
      'lab-net',
      '-p',
      '127.0.0.1:41020:80',
      dockerd.busyboxImage,
      'sleep',
      '300',
    ]);
    const ports = await containerPorts(engine, new Set());
    expect(ports.has(41020)).toBe(true);
    await dockerd.docker(['rm', '-f', 'running-b']);
  }, 60_000);
  it('skips containers of a known stack (project and working dir labels)', async () => {
    await dockerd.docker([
      'create',
      '--name',
      'known-c',
      '--label',
      'com.docker.compose.project=known',
      '--label',
      'com.docker.compose.project.working_dir=/stacks/known',
      '-p',
      '41030:80',
      dockerd.busyboxImage,
      'true',
    ]);
    expect((await containerPorts(engine, new Set())).has(41030)).toBe(true);
    expect((await containerPorts(engine, new Set(['known\0/stacks/known']))).has(41030)).toBe(false);
  });
  it('lists networks by name', async () => {
    expect(await engine.networks()).toEqual(expect.arrayContaining(['host', 'none', 'lab-net']));
  });
  it('an unreachable Engine is 503 docker_unavailable', async () => {
    const dead = createDockerEngine({ socketPath: '/nonexistent/docker.sock' });
    await expect(dead.networks()).rejects.toMatchObject({ status: 503, code: 'docker_unavailable' });
    await expect(containerPorts(dead, new Set())).rejects.toMatchObject({ code: 'docker_unavailable' });
  });
});
