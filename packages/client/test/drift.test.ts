import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fetchOpenApi, GENERATED, typesOf } from '../scripts/openapi-types.ts';

describe('the generated types', () => {
  it('are the types of the OpenAPI document the server serves today', async () => {
    const fresh = await typesOf(await fetchOpenApi());
    const committed = fs.readFileSync(GENERATED, 'utf8');
    // On failure: the server's routes changed. Run `pnpm --filter @appliance/client generate`
    // and commit src/generated/openapi.ts (then fix whatever no longer typechecks).
    expect(
      committed === fresh,
      'src/generated/openapi.ts is stale: run `pnpm --filter @appliance/client generate`',
    ).toBe(true);
  });

  it('notice a route the document gains or loses', async () => {
    const doc = await fetchOpenApi();
    const paths = doc['paths'] as Record<string, unknown>;
    const committed = fs.readFileSync(GENERATED, 'utf8');
    delete paths['/api/v1/shares/{name}/permissions'];
    expect(await typesOf(doc)).not.toBe(committed);
  });
});
