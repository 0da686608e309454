/**
 * The busy guard of share deletes: the "is a delete running for share X" of 05 §4 step 12 that a
 * definition delete consults too. One guard per set of locks (one server): `ShareDeleteGuard.of`
 * hands out the same guard for the same locks, so the service holds no guard of its own.
 */
import { dataDeleteErrors } from '../data-delete/core/checks.ts';

/** The lock key of everything that deletes a share (its files or its definition); case-insensitive. */
export const shareBusyKey = (name: string): string => `share-delete:${name.toLowerCase()}`;

/** Named locks that refuse at once when a key is held. */
export interface TryLocks {
  tryRun<T>(key: string, busy: () => Error, fn: () => Promise<T>): Promise<T>;
}

const guards = new WeakMap<TryLocks, ShareDeleteGuard>();

export class ShareDeleteGuard {
  /** The shares (lower case) whose data delete runs now. */
  private readonly deleting = new Set<string>();
  private readonly locks: TryLocks;

  constructor(locks: TryLocks) {
    this.locks = locks;
  }

  /** The guard of these locks (created on first use). */
  static of(locks: TryLocks): ShareDeleteGuard {
    let guard = guards.get(locks);
    if (!guard) {
      guard = new ShareDeleteGuard(locks);
      guards.set(locks, guard);
    }
    return guard;
  }

  /** Whether a data delete of this share runs now. */
  running(name: string): boolean {
    return this.deleting.has(name.toLowerCase());
  }

  /** Runs `fn` as the share's data delete, or refuses `share_busy` when any delete of the share runs. */
  whileDeleting<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.tryRun(
      shareBusyKey(name),
      () => dataDeleteErrors.shareBusy(name),
      async () => {
        this.deleting.add(name.toLowerCase());
        try {
          return await fn();
        } finally {
          this.deleting.delete(name.toLowerCase());
        }
      },
    );
  }
}
