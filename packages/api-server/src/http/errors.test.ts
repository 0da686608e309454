import { AppError, refuse } from '@appliance/common';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { errorResponse } from './errors.ts';

const logger = createLogger(() => undefined, 'silent');

function appThrowing(err: unknown): Hono {
  const app = new Hono();
  app.get('/x', () => {
    throw err;
  });
  app.onError((e, c) => errorResponse(c, e, logger));
  return app;
}

describe('errorResponse: the one error map', () => {
  it('gives a package refusal the status the map names for its code, with its body unchanged', async () => {
    const res = await appThrowing(
      refuse('not_configured', 'Install snapraid.', { tool: 'snapraid' }),
    ).request('/x');
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({
      code: 'not_configured',
      message: 'Install snapraid.',
      details: { tool: 'snapraid' },
    });
  });

  it('answers 409 for a refusal code the map does not list (refused in the current state)', async () => {
    const res = await appThrowing(refuse('sync_running', 'Wait for the sync to finish.')).request('/x');
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ code: 'sync_running', message: 'Wait for the sync to finish.' });
  });

  it('keeps the status an AppError carries', async () => {
    const res = await appThrowing(new AppError(422, 'odd', 'Odd.')).request('/x');
    expect(res.status).toBe(422);
  });

  it('answers any other throw with a 500 internal whose sentence says what to do', async () => {
    const res = await appThrowing(new TypeError('boom')).request('/x');
    expect(res.status).toBe(500);
    expect(((await res.json()) as { code: string }).code).toBe('internal');
  });
});
