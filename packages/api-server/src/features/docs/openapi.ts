/**
 * This API's OpenAPI document and reference page: the generator is @appliance/openapi's; here are
 * what is this API's own (its prefix, title, security schemes, error body and the error answers
 * every operation may give, its roles and Unix-socket flags as `x-` fields).
 */
import { buildDocument, type Json, renderReference as renderPage } from '@appliance/openapi';
import { API_PREFIX } from '../../http/app.ts';
import type { AnyRoute } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';

const errors: Record<string, string> = {
  '400': 'Invalid parameters or body (`bad_request` with `details.issues`) or a refusal of the operation',
  '401': 'Missing, malformed, unknown, expired or revoked credential',
  '403': 'Role too low, or a cross-origin write',
  '404': 'Unknown resource',
  '409': '`setup_required` before the first admin exists, or a conflict of the operation',
  '413': 'Body over the limit',
  '500': 'Unexpected failure (generic message)',
};

/** The OpenAPI 3.1 document, generated from the same valibot schemas that validate requests. */
export function buildOpenApi(routes: AnyRoute[], version: string): Json {
  return buildDocument(routes, {
    prefix: API_PREFIX,
    info: {
      title: 'Storage appliance admin API',
      version,
      description: 'Administrator operations of the appliance. Errors: `{code, message, details?}`.',
    },
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'Personal API token `apat_…`' },
      basic: { type: 'http', scheme: 'basic', description: 'Only on POST /api/v1/tokens' },
    },
    errorSchema: ErrorBody,
    errors,
    // a public route needs no credential: it is never 401 or 403
    omitErrors: (route) => (route.role === 'public' ? ['401', '403'] : []),
    extensions: (route) => ({
      'x-role': route.role,
      ...(route.socketBeforeSetup ? { 'x-unix-socket-before-setup': true } : {}),
      ...(route.socketOnly ? { 'x-unix-socket-only': true } : {}),
    }),
    security: (route) =>
      route.role === 'public' ? [] : route.allowBasic ? [{ bearer: [] }, { basic: [] }] : [{ bearer: [] }],
  });
}

/** A self-contained, browsable reference page (no external scripts: the appliance may be offline). */
export const renderReference = (doc: Json): string =>
  renderPage(doc, {
    title: 'Appliance API reference',
    heading: 'Appliance admin API',
    documentUrl: `${API_PREFIX}/openapi.json`,
  });
