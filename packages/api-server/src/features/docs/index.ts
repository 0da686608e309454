import type { AnyRoute } from '../../http/route.ts';
import { defineRoute } from '../../http/route.ts';
import type { Feature } from '../feature.ts';

/** The generator (and @valibot/to-json-schema) loads on the first request for the document. */
const generator = () => import('./openapi.ts');

/** `GET /openapi.json` and the browsable `GET /docs`; built from every other route. */
export function docsFeature(allRoutes: () => AnyRoute[], version: string): Feature {
  let doc: Record<string, unknown> | null = null;
  let html: string | null = null;
  const get = async () => (doc ??= (await generator()).buildOpenApi(allRoutes(), version));
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
        handler: async ({ c }) => c.json(await get()),
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
          html ??= (await generator()).renderReference(await get());
          return c.html(html);
        },
      }),
    ],
  };
}
