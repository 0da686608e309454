/**
 * Conditions kept in memory: a daemon without a database (they start afresh with the process) and
 * the tests. Each write runs at once, so two reporters of one key never both raise it.
 */
import type { Condition } from './model.ts';
import type {
  ConditionEvents,
  ConditionStore,
  ConditionWrite,
  RaisedEvent,
  StoredCondition,
} from './ports.ts';

export interface MemoryConditionRow extends StoredCondition {
  updatedAt: string;
  clearedAt: string | null;
  alertId: number | null;
}

export class MemoryConditionStore implements ConditionStore<null> {
  /** Every row, holding and cleared, in the order of their onsets. */
  readonly rows: MemoryConditionRow[] = [];

  holding(): StoredCondition[] {
    return this.rows
      .filter((r) => r.clearedAt === null)
      .map(({ updatedAt: _u, clearedAt: _c, alertId: _a, ...row }) => ({ ...row }));
  }

  async write<T>(fn: (w: ConditionWrite<null>) => T): Promise<T> {
    const before = this.rows.map((r) => ({ ...r }));
    const open = (key: string) => this.rows.find((r) => r.key === key && r.clearedAt === null);
    try {
      return fn({
        tx: null,
        holds: (key) => open(key) !== undefined,
        insert: (row, at, alertId) =>
          void this.rows.push({ ...row, updatedAt: at, clearedAt: null, alertId }),
        update: (c: Condition, at) => {
          const r = open(c.key);
          if (r)
            Object.assign(r, {
              value: c.value,
              message: c.message,
              title: c.title,
              subject: c.subject,
              updatedAt: at,
            });
        },
        clear: (key, at) => {
          const r = open(key);
          if (!r) return false;
          Object.assign(r, { clearedAt: at, updatedAt: at });
          return true;
        },
        pruneCleared: (before) => {
          const kept = this.rows.filter((r) => r.clearedAt === null || r.clearedAt >= before);
          this.rows.splice(0, this.rows.length, ...kept);
        },
      });
    } catch (err) {
      // atomic: a write that throws leaves nothing behind
      this.rows.splice(0, this.rows.length, ...before);
      throw err;
    }
  }
}

/**
 * An event sink that keeps what it raised (`raised`), calling `onRaise` after each commit when
 * given (a daemon's own notifier).
 */
export class CollectingConditionEvents implements ConditionEvents<unknown> {
  readonly raised: RaisedEvent[] = [];
  private readonly onRaise: ((event: RaisedEvent) => void | Promise<void>) | undefined;

  constructor(onRaise?: (event: RaisedEvent) => void | Promise<void>) {
    this.onRaise = onRaise;
  }

  raise(_tx: unknown, event: RaisedEvent) {
    return {
      alertId: null,
      afterCommit: async () => {
        this.raised.push(event);
        await this.onRaise?.(event);
      },
    };
  }
}
