import { AppError, Refusal } from '@appliance/common';
import type { Context } from 'hono';
import type { Logger } from '../logger.ts';
import { refusalStatus } from './refusal-status.ts';

/** The matched route pattern for logs; `(none)` when no route matched (an unknown path). */
export function routeLabel(c: Context): string {
  try {
    return c.req.routePath;
  } catch {
    return '(none)';
  }
}

/** The one place where errors become responses (00 §3 error body). */
export function errorResponse(c: Context, err: unknown, logger: Logger): Response {
  if (err instanceof Refusal) {
    const status = err instanceof AppError ? err.status : refusalStatus(err.code);
    // RFC 9110 §11.6.1: a 401 names the scheme to authenticate with (RFC 6750 for Bearer).
    if (status === 401) c.header('WWW-Authenticate', WWW_AUTHENTICATE);
    if (status >= 500) logger.warn('operation failed', { code: err.code, route: routeLabel(c) });
    // Not a failure of the server: the answer goes nowhere (issue 25: logged as a 500).
    if (err.code === 'client_disconnected')
      logger.info('client disconnected', { route: routeLabel(c), method: c.req.method });
    return c.json(err.toBody(), status as 400);
  }
  logger.error('unexpected failure', {
    route: routeLabel(c),
    method: c.req.method,
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    stack: err instanceof Error ? err.stack?.split('\n').slice(0, 8).join(' | ') : undefined,
  });
  return c.json(INTERNAL, 500);
}

/** The body of a `500 internal`: a generic sentence, the details are in the log. */
export const INTERNAL = {
  code: 'internal',
  message: 'An unexpected error occurred. Try again; if it persists, check the service log.',
};

/** The challenge every 401 carries (docs/decisions/http.md). */
export const WWW_AUTHENTICATE = 'Bearer realm="appliance"';

export const unauthorized = () =>
  new AppError(401, 'unauthorized', 'Send a valid credential: Authorization: Bearer <API token>.');
export const forbidden = (
  message = 'Your account or token does not have the role this operation requires.',
) => new AppError(403, 'forbidden', message);
export const tooLarge = (limit: number) =>
  new AppError(
    413,
    'request_too_large',
    `The request body is larger than ${limit} bytes; send a smaller body.`,
  );
export const routeNotFound = () =>
  new AppError(
    404,
    'not_found',
    'There is no such route; see /api/v1/openapi.json for the routes this service has.',
  );

/** A path other methods serve (the caller sets `Allow` to the same list). */
export const methodNotAllowed = (method: string, allowed: readonly string[]) =>
  new AppError(
    405,
    'method_not_allowed',
    `This path does not accept ${method}; it accepts ${allowed.join(', ')}. See /api/v1/openapi.json for the routes this service has.`,
    { allowed: [...allowed] },
  );
