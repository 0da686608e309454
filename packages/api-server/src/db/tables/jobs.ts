/** The jobs and schedules tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, index, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// ── jobs and schedules (09) ────────────────────────────────────────────────────────────────────
export const JOB_STATES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
  'blocked',
] as const;

/** Long operations (parity sync and scrub, disk jobs, backups): one row each, kept as history. */
export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    target: text('target').notNull(),
    state: text('state', { enum: JOB_STATES }).notNull(),
    phase: text('phase'),
    percent: real('percent'),
    bytesDone: integer('bytes_done'),
    bytesTotal: integer('bytes_total'),
    etaSeconds: integer('eta_seconds'),
    cancellable: integer('cancellable').notNull().default(0),
    trigger: text('trigger', { enum: ['request', 'schedule'] }).notNull(),
    actor: text('actor').notNull(),
    /** JSON: what the job was asked to do (never a secret). */
    params: text('params').notNull().default('{}'),
    /** JSON: what it did (succeeded, blocked), or null. */
    result: text('result'),
    /** JSON `{code, message, details?}` (failed, cancelled, interrupted, blocked), or null. */
    error: text('error'),
    /** JSON array: the last lines of the tool's output. */
    output: text('output').notNull().default('[]'),
    /** The host process the job runs (found and stopped after a crash), or null. */
    pid: integer('pid'),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    endedAt: text('ended_at'),
  },
  (t) => [
    index('jobs_type_created').on(t.type, t.createdAt),
    index('jobs_state').on(t.state),
    check(
      'jobs_state_check',
      sql`${t.state} in ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted', 'blocked')`,
    ),
    check('jobs_trigger_check', sql`${t.trigger} in ('request', 'schedule')`),
  ],
);

/** The last slot each in-service schedule ran for (a slot missed while down runs once at start). */
export const scheduleRuns = sqliteTable('schedule_runs', {
  name: text('name').primaryKey(),
  lastDueAt: text('last_due_at').notNull(),
  lastRunAt: text('last_run_at').notNull(),
  jobId: text('job_id'),
});
