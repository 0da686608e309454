/**
 * Stacks when the Docker Engine does not answer (issue 35): the list still shows every stack
 * (status unknown, docker "unavailable"); one stack's state, a start and the logs are
 * 503 docker_unavailable, and nothing is written. The compose tool's `config` check of
 * POST /stacks needs no daemon.
 */
import { requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

let s: Sandbox;
const previous = process.env['DOCKER_HOST'];

beforeAll(async () => {
  await requirePrerequisites({ tools: ['docker-compose'] });
  process.env['DOCKER_HOST'] = 'unix:///nonexistent/docker.sock';
  s = await startSandbox();
  const r = await s.call('POST', '/stacks', {
    name: 'web',
    compose: 'services:\n  app:\n    image: busybox\n    ports: ["127.0.0.1:18081:80"]\n',
  });
  expect(r.status, r.text).toBe(201);
}, 60_000);

afterAll(async () => {
  await s?.close();
  if (previous === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = previous;
});

describe('stacks without Docker', () => {
  it('the list answers with every stack, status unknown', async () => {
    const r = await s.call('GET', '/stacks');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      docker: 'unavailable',
      stacks: [
        {
          name: 'web',
          template: null,
          installedAt: expect.any(String),
          manuallyEdited: false,
          directory: '/var/lib/appliance/stacks/web',
          status: 'unknown',
          services: [],
          updateAvailable: false,
        },
      ],
    });
  });

  it('state, start and logs are 503 docker_unavailable; nothing is written', async () => {
    const before = s.dumpDatabase();
    for (const [m, p] of [
      ['GET', '/stacks/web'],
      ['POST', '/stacks/web/start'],
      ['GET', '/stacks/web/logs'],
    ] as const) {
      const r = await s.call(m, p, m === 'POST' ? {} : undefined);
      expect(r.status, `${m} ${p}: ${r.text}`).toBe(503);
      expect(r.body.code).toBe('docker_unavailable');
    }
    expect(s.dumpDatabase()).toBe(before);
  });

  it('a hand-made stack has no inputs to edit: 409, nothing written', async () => {
    const before = s.dumpDatabase();
    const r = await s.call('PUT', '/stacks/web/values', { values: { X: '1' } });
    expect(r.status, r.text).toBe(409);
    expect(r.body.code).toBe('stack_has_no_inputs');
    expect((await s.call('PUT', '/stacks/web/values', { values: { X: 1 } })).status).toBe(400);
    expect(s.dumpDatabase()).toBe(before);
  });

  it('an unknown stack is 404 stack_not_found everywhere, an invalid name too', async () => {
    for (const p of ['/stacks/nope', '/stacks/Bad%20Name', '/stacks/nope/logs'])
      expect((await s.call('GET', p)).body.code, p).toBe('stack_not_found');
    const r = await s.call('DELETE', '/stacks/nope', { confirm: 'DELETE nope' });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('stack_not_found');
  });
});
