/** The stack operations' ports (@appliance/template-installer's stacks) wired to this server. */
import { createComposeTool, createStacksDeps, type StacksDeps } from '@appliance/template-installer';
import { IMAGE_KEY_PREFIX } from '@appliance/watchers';
import { and, isNull, like } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { watcherConditions } from '../../db/schema.ts';
import { createSqliteStackStore } from './store.ts';

/** Where templates put their `appdata` folders (docs/decisions/backups.md): the only data removed. */
export const APPDATA_ROOT = '/mnt/cache';

const cache = new WeakMap<AppContext, StacksDeps>();

/** Open `container_update_available` conditions of a stack (the images watcher's `image:<stack>/<service>`). */
function updatesOf(ctx: AppContext, name: string): Map<string, string> {
  const prefix = `${IMAGE_KEY_PREFIX}${name}/`;
  const out = new Map<string, string>();
  for (const r of ctx.db
    .select({ key: watcherConditions.key, message: watcherConditions.message })
    .from(watcherConditions)
    .where(and(like(watcherConditions.key, `${prefix}%`), isNull(watcherConditions.clearedAt)))
    .all())
    if (r.key.startsWith(prefix)) out.set(r.key.slice(prefix.length), r.message);
  return out;
}

export function stacksDeps(ctx: AppContext): StacksDeps {
  let deps = cache.get(ctx);
  if (deps) return deps;
  deps = createStacksDeps({
    runner: ctx.runner,
    tool: createComposeTool(ctx.runner, process.env),
    stacks: createSqliteStackStore(ctx),
    locks: ctx.locks,
    stacksDir: ctx.paths.stacksDir,
    appDataRoot: ctx.paths.real(APPDATA_ROOT),
    environ: () => process.env,
    updates: async (name) => updatesOf(ctx, name),
    procDir: ctx.paths.procDir,
  });
  cache.set(ctx, deps);
  return deps;
}
