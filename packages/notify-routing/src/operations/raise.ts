/**
 * The raise path (04 §4) as the host runs it: effective severity stamped, the alert row and one
 * delivery per enabled routed channel in one write job, then, after the commit, the alert announced
 * (the host pushes it on its event stream and wakes the delivery worker).
 */
import type { Clock } from '@appliance/common';
import { type Alert, type RaisedEvent, type RaiseStore, raiseEvent } from '../core/raise.ts';

export interface RaiseDeps<Db> {
  /** Runs `job` as one write job of the host and resolves after its commit. */
  write<T>(job: (db: Db) => T): Promise<T>;
  /** The raise store on a write job's handle. */
  store(db: Db): RaiseStore;
  clock: Clock;
  /** After the commit: the stored alert goes out. */
  announce(alert: Alert): void;
}

export function createRaiser<Db>(deps: RaiseDeps<Db>) {
  return {
    /** Raises `event` in its own write job, announced after the commit. */
    async raise(event: RaisedEvent): Promise<void> {
      const { alert } = await deps.write((db) => raiseEvent(deps.store(db), event, deps.clock.now()));
      deps.announce(alert);
    },
    /**
     * Raises inside the caller's write job (the watchers' conditions commit with their alert);
     * the caller calls `announce` after its commit.
     */
    within(db: Db, event: RaisedEvent): { alertId: number; announce: () => void } {
      const { alert } = raiseEvent(deps.store(db), event, deps.clock.now());
      return { alertId: alert.id, announce: () => deps.announce(alert) };
    },
  };
}
