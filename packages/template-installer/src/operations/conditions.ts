/** The stack jobs' conditions port and the stacks' update marks, from the open conditions. */
import { IMAGE_KEY_PREFIX } from '@appliance/watchers';
import type { StackConditions } from '../jobs/ports.ts';

/** Open conditions as stored, whose key may start with `prefix` (a LIKE match: check again). */
export type OpenConditions = (prefix: string) => Promise<{ key: string; message: string }[]>;

const openWith = async (open: OpenConditions, prefix: string) =>
  (await open(prefix)).filter((r) => r.key.startsWith(prefix));

/** Open `container_update_available` conditions of a stack (`image:<stack>/<service>`): service → message. */
export async function stackUpdates(open: OpenConditions, name: string): Promise<Map<string, string>> {
  const prefix = `${IMAGE_KEY_PREFIX}${name}/`;
  return new Map((await openWith(open, prefix)).map((r) => [r.key.slice(prefix.length), r.message]));
}

export function createStackConditions(
  open: OpenConditions,
  raise: Pick<StackConditions, 'hold' | 'clear'>,
): StackConditions {
  return {
    openKeys: async (prefix) => (await openWith(open, prefix)).map((r) => r.key),
    hold: (key, report, source) => raise.hold(key, report, source),
    clear: (key) => raise.clear(key),
  };
}
