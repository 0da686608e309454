/** What the stack routes read: a stack's state with its "edited by hand" mark, and the list. */
import { Refusal } from '@appliance/common';
import type { StackState } from '../stacks/core/state.ts';
import { listStackStates, readStackState } from '../stacks/operations/state.ts';
import type { StacksDeps } from '../stacks/ports.ts';

/** A stack's state with `manuallyEdited` from its row. */
export async function withEdited(deps: StacksDeps, s: StackState) {
  const row = await deps.stacks.get(s.name);
  return { ...s, manuallyEdited: row?.manuallyEdited ?? false };
}

/**
 * Every installed stack with its containers; when the Engine is unreachable, the rows alone with
 * status `unknown` and `docker: 'unavailable'` (the list still answers).
 */
export async function listStacks(deps: StacksDeps) {
  try {
    const states = await listStackStates(deps);
    const stacks = [];
    for (const s of states) stacks.push(await withEdited(deps, s));
    return { stacks, docker: 'ok' as const };
  } catch (e) {
    if (!(e instanceof Refusal) || e.code !== 'docker_unavailable') throw e;
    const rows = (await deps.stacks.list()).filter((r) => !r.pending);
    return {
      docker: 'unavailable' as const,
      stacks: rows.map((r) => ({
        name: r.name,
        template: r.template,
        installedAt: r.installedAt,
        manuallyEdited: r.manuallyEdited,
        directory: `/var/lib/appliance/stacks/${r.name}`,
        status: 'unknown' as const,
        services: [],
        updateAvailable: false,
      })),
    };
  }
}

/** One stack's state (refused `stack_not_found` for an unknown name). */
export async function showStack(deps: StacksDeps, name: string) {
  return withEdited(deps, await readStackState(deps, name));
}

/** Whether any container of the stack runs now. */
export async function isStackRunning(deps: StacksDeps, name: string): Promise<boolean> {
  return (await deps.engine.containers(name)).some((c) => c.state === 'running');
}
