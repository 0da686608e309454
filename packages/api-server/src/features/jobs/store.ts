/**
 * The SQLite stores of `@appliance/jobs`: the `jobs` rows (with the audit entry of a start in the
 * same write) and the scheduler's `schedule_runs`. Exercised by the server's job, parity, disk-job
 * and crash tests.
 */
import { isoMillis } from '@appliance/common';
import {
  fromRecord,
  interruptedFields,
  type JobStore,
  liveFields,
  type ScheduleStore,
  toRecord,
} from '@appliance/jobs';
import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { jobs, scheduleRuns } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

export function createJobStore(ctx: AppContext): JobStore<Actor> {
  const { db, writes } = ctx;
  const byId = (id: string) => db.select().from(jobs).where(eq(jobs.id, id)).get();
  return {
    insert: (view, audit) =>
      writes.run((tx) => {
        tx.insert(jobs).values(toRecord(view)).run();
        ctx.audit.record(tx, audit.actor, {
          operation: audit.operation,
          target: audit.target,
          details: audit.details,
        });
      }),
    save: async (v, final) => {
      await writes.run((tx) => tx.update(jobs).set(liveFields(v, final)).where(eq(jobs.id, v.id)).run());
    },
    setPid: async (id, pid) => {
      await writes.run((tx) => tx.update(jobs).set({ pid }).where(eq(jobs.id, id)).run());
    },
    get: (id) => {
      const row = byId(id);
      return row ? fromRecord(row) : null;
    },
    list: (q) => {
      const conds = [];
      if (q.type) conds.push(eq(jobs.type, q.type));
      if (q.state) conds.push(eq(jobs.state, q.state));
      if (q.before) {
        const b = byId(q.before);
        if (b)
          conds.push(
            sql`(${jobs.createdAt} < ${b.createdAt} or (${jobs.createdAt} = ${b.createdAt} and ${jobs.id} < ${b.id}))`,
          );
      }
      return db
        .select()
        .from(jobs)
        .where(conds.length ? and(...conds) : undefined)
        .orderBy(desc(jobs.createdAt), desc(jobs.id))
        .limit(q.limit)
        .all()
        .map(fromRecord);
    },
    latest: (type, states) => {
      const row = db
        .select()
        .from(jobs)
        .where(states ? and(eq(jobs.type, type), inArray(jobs.state, [...states])) : eq(jobs.type, type))
        .orderBy(desc(jobs.createdAt), desc(jobs.id))
        .limit(1)
        .get();
      return row ? fromRecord(row) : null;
    },
    inStates: (states) =>
      db
        .select()
        .from(jobs)
        .where(inArray(jobs.state, [...states]))
        .all()
        .map(fromRecord),
    markInterrupted: (list) =>
      writes.run((tx) => {
        for (const j of list) tx.update(jobs).set(interruptedFields(j)).where(eq(jobs.id, j.id)).run();
      }),
    settle: async (id, error, result) => {
      await writes.run((tx) =>
        tx
          .update(jobs)
          .set({ error: JSON.stringify(error), result: result === null ? null : JSON.stringify(result) })
          .where(eq(jobs.id, id))
          .run(),
      );
    },
    prune: (olderThan, keep, states) =>
      writes.run(
        (tx) =>
          tx
            .delete(jobs)
            .where(
              and(
                lt(jobs.createdAt, isoMillis(olderThan)),
                inArray(jobs.state, [...states]),
                sql`${jobs.id} not in (select id from (select id, row_number() over (partition by type order by created_at desc) as n from jobs) where n <= ${keep})`,
              ),
            )
            .run().changes,
      ),
    audit: async (entry) => {
      await writes.run((tx) =>
        ctx.audit.record(tx, entry.actor, {
          operation: entry.operation,
          target: entry.target,
          details: entry.details,
        }),
      );
    },
  };
}

export function createScheduleStore(ctx: AppContext): ScheduleStore {
  return {
    last: (name) => ctx.db.select().from(scheduleRuns).where(eq(scheduleRuns.name, name)).get() ?? null,
    record: async (row) => {
      await ctx.writes.run((tx) =>
        tx.insert(scheduleRuns).values(row).onConflictDoUpdate({ target: scheduleRuns.name, set: row }).run(),
      );
    },
  };
}
