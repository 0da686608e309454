/**
 * Where a condition's onset is raised: inside the write that records it when a sink offers that
 * (`within`: its alert row commits with the condition, announced after the commit), else after the
 * commit (`after`). Both are read at each raise (a sink may be wired after the conditions).
 */
import type { ConditionEvents, RaisedEvent } from './ports.ts';

export interface RaiseSinks<Tx> {
  within(): ((tx: Tx, event: RaisedEvent) => { alertId: number; announce: () => void }) | undefined;
  after(event: RaisedEvent): void | Promise<void>;
}

export function raiseWithinOrAfter<Tx>(sinks: RaiseSinks<Tx>): ConditionEvents<Tx> {
  return {
    raise(tx, event) {
      const within = sinks.within();
      if (within) {
        const raised = within(tx, event);
        return { alertId: raised.alertId, afterCommit: raised.announce };
      }
      return { alertId: null, afterCommit: () => sinks.after(event) };
    },
  };
}
