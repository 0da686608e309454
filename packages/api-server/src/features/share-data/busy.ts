/**
 * "Is a delete running for share X" (05 §4 step 12, 08 §6). A data delete holds the KeyedLocks key
 * `shareBusyKey(name)` for its whole run and is listed in the per-server set behind
 * `ctx.hooks.shareDataDeleteRunning`, which DELETE /shares/:name consults for its 409 share_busy.
 * A definition delete that holds the same key makes a data delete answer 409 share_busy too.
 */
import { dataDeleteErrors } from '@appliance/shares';
import type { AppContext } from '../../context.ts';

/** The lock key of everything that deletes a share (its files or its definition); case-insensitive like names. */
export const shareBusyKey = (name: string): string => `share-delete:${name.toLowerCase()}`;

const running = new WeakMap<AppContext, Set<string>>();

const runningSet = (ctx: AppContext): Set<string> => {
  let set = running.get(ctx);
  if (!set) {
    set = new Set();
    running.set(ctx, set);
  }
  return set;
};

/** Whether a data delete of this share is running on this server. */
export const shareDataDeleteRunning = (ctx: AppContext, name: string): boolean =>
  runningSet(ctx).has(name.toLowerCase());

/** Runs `fn` as the share's data delete, or throws 409 share_busy when any delete of the share runs. */
export function whileShareDataDelete<T>(ctx: AppContext, name: string, fn: () => Promise<T>): Promise<T> {
  return ctx.locks.tryRun(
    shareBusyKey(name),
    () => dataDeleteErrors.shareBusy(name),
    async () => {
      const set = runningSet(ctx);
      set.add(name.toLowerCase());
      try {
        return await fn();
      } finally {
        set.delete(name.toLowerCase());
      }
    },
  );
}
