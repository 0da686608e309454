/**
 * The SQLite stores of `@appliance/jobs`: the `jobs` rows (with the audit entry of a start in the
 * same write) and the scheduler's `schedule_runs`. Exercised by the server's job, parity, disk-job
 * and crash tests.
 */
import { isoMillis } from '@appliance/common';
import type { JobError, JobStore, JobView, ScheduleStore, StoredJob } from '@appliance/jobs';
import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { jobs, scheduleRuns } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

type JobRow = typeof jobs.$inferSelect;

const ENDED = ['succeeded', 'failed', 'cancelled', 'interrupted', 'blocked'] as const;

export function createJobStore(ctx: AppContext): JobStore<Actor> {
  const { db, writes } = ctx;
  const byId = (id: string) => db.select().from(jobs).where(eq(jobs.id, id)).get();
  return {
    insert: (view, audit) =>
      writes.run((tx) => {
        tx.insert(jobs).values(toRow(view)).run();
        ctx.audit.record(tx, audit.actor, {
          operation: audit.operation,
          target: audit.target,
          details: audit.details,
        });
      }),
    save: async (v, final) => {
      const values = {
        state: v.state,
        phase: v.phase,
        percent: v.percent,
        bytesDone: v.bytesDone,
        bytesTotal: v.bytesTotal,
        etaSeconds: v.etaSeconds,
        cancellable: v.cancellable ? 1 : 0,
        output: JSON.stringify(v.output),
        ...(final
          ? {
              result: v.result === null ? null : JSON.stringify(v.result),
              error: v.error === null ? null : JSON.stringify(v.error),
              endedAt: v.endedAt,
              pid: null,
            }
          : {}),
      };
      await writes.run((tx) => tx.update(jobs).set(values).where(eq(jobs.id, v.id)).run());
    },
    setPid: async (id, pid) => {
      await writes.run((tx) => tx.update(jobs).set({ pid }).where(eq(jobs.id, id)).run());
    },
    get: (id) => {
      const row = byId(id);
      return row ? fromRow(row) : null;
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
        .map(fromRow);
    },
    latest: (type, states) => {
      const row = db
        .select()
        .from(jobs)
        .where(states ? and(eq(jobs.type, type), inArray(jobs.state, [...states])) : eq(jobs.type, type))
        .orderBy(desc(jobs.createdAt), desc(jobs.id))
        .limit(1)
        .get();
      return row ? fromRow(row) : null;
    },
    unfinished: () =>
      db
        .select()
        .from(jobs)
        .where(inArray(jobs.state, ['running', 'queued']))
        .all()
        .map(fromRow),
    markInterrupted: (list) =>
      writes.run((tx) => {
        for (const j of list)
          tx.update(jobs)
            .set({
              state: 'interrupted',
              cancellable: 0,
              etaSeconds: null,
              endedAt: j.endedAt,
              error: JSON.stringify(j.error),
            })
            .where(eq(jobs.id, j.id))
            .run();
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
    prune: (olderThan, keep) =>
      writes.run(
        (tx) =>
          tx
            .delete(jobs)
            .where(
              and(
                lt(jobs.createdAt, isoMillis(olderThan)),
                inArray(jobs.state, [...ENDED]),
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

function toRow(v: JobView): typeof jobs.$inferInsert {
  return {
    id: v.id,
    type: v.type,
    target: v.target,
    state: v.state,
    phase: v.phase,
    percent: v.percent,
    bytesDone: v.bytesDone,
    bytesTotal: v.bytesTotal,
    etaSeconds: v.etaSeconds,
    cancellable: v.cancellable ? 1 : 0,
    trigger: v.trigger,
    actor: v.actor,
    params: JSON.stringify(v.params),
    result: v.result === null ? null : JSON.stringify(v.result),
    error: v.error === null ? null : JSON.stringify(v.error),
    output: JSON.stringify(v.output),
    createdAt: v.createdAt,
    startedAt: v.startedAt,
    endedAt: v.endedAt,
  };
}

function fromRow(r: JobRow): StoredJob {
  return {
    id: r.id,
    type: r.type,
    target: r.target,
    state: r.state,
    phase: r.phase,
    percent: r.percent,
    bytesDone: r.bytesDone,
    bytesTotal: r.bytesTotal,
    etaSeconds: r.etaSeconds,
    cancellable: r.cancellable === 1,
    trigger: r.trigger,
    actor: r.actor,
    params: JSON.parse(r.params) as Record<string, unknown>,
    result: r.result === null ? null : (JSON.parse(r.result) as unknown),
    error: r.error === null ? null : (JSON.parse(r.error) as JobError),
    output: JSON.parse(r.output) as string[],
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    pid: r.pid,
  };
}
