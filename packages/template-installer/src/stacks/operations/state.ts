/** GET /stacks and GET /stacks/:name: the stacks' rows joined with the Engine's view. */
import { logicalStackDir } from '../../node/stack-files.ts';
import type { StackRow } from '../../node/stack-store.ts';
import { composeServices } from '../core/services.ts';
import { type StackState, stackState } from '../core/state.ts';
import type { EngineContainerSummary, StacksDeps } from '../ports.ts';
import { stackNotFound } from './errors.ts';

const servicesCache = new Map<string, string[]>();

/** Service names per compose text (the YAML is parsed once per distinct file). */
function servicesOf(compose: string): string[] {
  let s = servicesCache.get(compose);
  if (!s) {
    s = composeServices(compose);
    if (servicesCache.size > 1024) servicesCache.clear();
    servicesCache.set(compose, s);
  }
  return s;
}

function build(
  row: StackRow,
  containers: readonly EngineContainerSummary[],
  digests: ReadonlyMap<string, readonly string[]>,
  updates: ReadonlyMap<string, string>,
): StackState {
  return stackState({
    name: row.name,
    template: row.template,
    installedAt: row.installedAt,
    directory: logicalStackDir(row.name),
    services: servicesOf(row.compose),
    containers: containers.filter((c) => c.project === row.name),
    digests,
    updates,
  });
}

export async function listStackStates(deps: StacksDeps): Promise<StackState[]> {
  const rows = (await deps.stacks.list()).filter((r) => !r.pending);
  if (rows.length === 0) return [];
  const [containers, digests] = await Promise.all([deps.engine.containers(), deps.engine.imageDigests()]);
  const out: StackState[] = [];
  for (const row of rows) out.push(build(row, containers, digests, await deps.updates(row.name)));
  return out;
}

export async function requireStack(deps: StacksDeps, name: string): Promise<StackRow> {
  const row = await deps.stacks.get(name);
  if (!row || row.pending) throw stackNotFound(name);
  return row;
}

export async function readStackState(deps: StacksDeps, name: string): Promise<StackState> {
  const row = await requireStack(deps, name);
  const [containers, digests] = await Promise.all([deps.engine.containers(name), deps.engine.imageDigests()]);
  return build(row, containers, digests, await deps.updates(name));
}
