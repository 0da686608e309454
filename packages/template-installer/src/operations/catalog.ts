/** GET /catalog: the sources and templates, each template with the stacks installed from it. */
import type { Catalog } from '../node/catalog.ts';
import type { StackRow, StackStore } from '../node/stack-store.ts';

/** Installed (not pending) stacks by the template id they came from. */
export function stacksByTemplate(rows: readonly StackRow[]): Map<string, string[]> {
  const byTemplate = new Map<string, string[]>();
  for (const r of rows) {
    if (r.pending || r.template === null) continue;
    byTemplate.set(r.template.id, [...(byTemplate.get(r.template.id) ?? []), r.name]);
  }
  return byTemplate;
}

export async function catalogView(catalog: Catalog, stacks: Pick<StackStore, 'list'>) {
  return catalog.view(stacksByTemplate(await stacks.list()));
}
