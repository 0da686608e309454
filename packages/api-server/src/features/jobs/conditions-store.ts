/**
 * The raise-once conditions of `@appliance/jobs` on SQLite: `watcher_conditions`, one open row per
 * key (`cleared_at` null), written through the write queue so an onset commits together with the
 * alert the notifications raise inside the same write job.
 */
import type { ConditionStore, ConditionWrite, StoredCondition } from '@appliance/jobs';
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { watcherConditions } from '../../db/schema.ts';

type Row = typeof watcherConditions.$inferSelect;

const stored = (r: Row): StoredCondition => ({
  key: r.key,
  eventType: r.eventType,
  source: r.source,
  subject: r.subject,
  value: r.value,
  title: r.title,
  message: r.message,
  since: r.since,
});

const open = (key: string) => and(eq(watcherConditions.key, key), isNull(watcherConditions.clearedAt));

function writer(db: Db): ConditionWrite<Db> {
  return {
    tx: db,
    holds: (key) =>
      db.select({ id: watcherConditions.id }).from(watcherConditions).where(open(key)).get() !== undefined,
    insert(row, at, alertId) {
      db.insert(watcherConditions)
        .values({ ...row, updatedAt: at, clearedAt: null, alertId })
        .run();
    },
    update(c, at) {
      db.update(watcherConditions)
        .set({ value: c.value, message: c.message, title: c.title, subject: c.subject, updatedAt: at })
        .where(open(c.key))
        .run();
    },
    clear(key, at) {
      return (
        db.update(watcherConditions).set({ clearedAt: at, updatedAt: at }).where(open(key)).run().changes > 0
      );
    },
    pruneCleared(before) {
      db.delete(watcherConditions).where(lt(watcherConditions.clearedAt, before)).run();
    },
  };
}

export function createConditionStore(ctx: Pick<AppContext, 'db' | 'writes'>): ConditionStore<Db> {
  return {
    holding: () =>
      ctx.db
        .select()
        .from(watcherConditions)
        .where(isNull(watcherConditions.clearedAt))
        .orderBy(watcherConditions.since, watcherConditions.id)
        .all()
        .map(stored),
    write: (fn) => ctx.writes.run((db) => fn(writer(db))),
  };
}
