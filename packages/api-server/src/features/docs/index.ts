import type { AnyRoute } from '../../http/route.ts';
import { defineRoute } from '../../http/route.ts';
import type { Feature } from '../feature.ts';

/** The generator (and @valibot/to-json-schema) loads on the first request for the document. */
const generator = () => import('./openapi.ts');

/**
 * `GET /openapi.json` and the browsable `GET /docs`; built from every other route, on the first
 * request for either, then kept as bytes: every answer sends that one shared buffer (no copy, no
 * serialization per request), so a client that pipelines requests and never reads the answers holds
 * references, not documents, until Node stops reading from it (issue 32, item 13).
 */
export function docsFeature(allRoutes: () => AnyRoute[], version: string): Feature {
  let doc: Record<string, unknown> | null = null;
  let json: Uint8Array<ArrayBuffer> | null = null;
  let html: Uint8Array<ArrayBuffer> | null = null;
  const get = async () => (doc ??= (await generator()).buildOpenApi(allRoutes(), version));
  const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
  return {
    name: 'docs',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/openapi.json',
        role: 'public',
        ungated: true,
        summary: 'This OpenAPI 3.1 document',
        tags: ['docs'],
        responses: { 200: { description: 'OpenAPI document', contentType: 'application/json' } },
        handler: async ({ c }) => {
          json ??= bytes(JSON.stringify(await get()));
          return c.body(json, 200, { 'content-type': 'application/json' });
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/docs',
        role: 'public',
        ungated: true,
        summary: 'Browsable API reference',
        tags: ['docs'],
        responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
        handler: async ({ c }) => {
          html ??= bytes((await generator()).renderReference(await get()));
          return c.body(html, 200, { 'content-type': 'text/html; charset=UTF-8' });
        },
      }),
    ],
  };
}
