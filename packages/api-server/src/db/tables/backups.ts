/** The backups tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { sealed, timestamps } from './columns.ts';

// ── backups (issue 23) ─────────────────────────────────────────────────────────────────────────
/** Backup plans: configuration (compared and restored by a config import). */
export const backupPlans = sqliteTable(
  'backup_plans',
  {
    name: text('name').primaryKey(),
    enabled: integer('enabled').notNull(),
    /** An external disk's label (07), registered as a backup destination. */
    destination: text('destination').notNull(),
    configuration: integer('configuration').notNull(),
    /** JSON `[{name, keepRunning}]`. */
    stacks: text('stacks').notNull(),
    /** JSON `["media", …]`. */
    shares: text('shares').notNull(),
    scheduleKind: text('schedule_kind', { enum: ['daily', 'weekly'] }).notNull(),
    scheduleWeekday: text('schedule_weekday'),
    scheduleTime: text('schedule_time').notNull(),
    keepDaily: integer('keep_daily').notNull(),
    keepWeekly: integer('keep_weekly').notNull(),
    keepMonthly: integer('keep_monthly').notNull(),
    drillEnabled: integer('drill_enabled').notNull(),
    drillEveryDays: integer('drill_every_days').notNull(),
    drillTime: text('drill_time').notNull(),
    /** The restic repository password, sealed (00 §4); travels in secrets.age. Null: not restored. */
    repoPassword: sealed('repo_password'),
    ...timestamps,
  },
  (t) => [
    check('backup_plans_schedule_check', sql`${t.scheduleKind} in ('daily', 'weekly')`),
    check(
      'backup_plans_weekday_check',
      sql`(${t.scheduleKind} = 'daily' and ${t.scheduleWeekday} is null) or (${t.scheduleKind} = 'weekly' and ${t.scheduleWeekday} is not null)`,
    ),
  ],
);

/** What the runs and drills of each plan did here (runtime: never restored by an import). */
export const backupPlanState = sqliteTable('backup_plan_state', {
  plan: text('plan').primaryKey(),
  /** When the plan became known on this installation (created, or restored by an import). */
  since: text('since').notNull(),
  lastScheduledAt: text('last_scheduled_at'),
  lastRunJobId: text('last_run_job_id'),
  lastRunAt: text('last_run_at'),
  lastRunState: text('last_run_state'),
  firstSuccessAt: text('first_success_at'),
  lastSuccessAt: text('last_success_at'),
  lastDrillScheduledAt: text('last_drill_scheduled_at'),
  lastDrillJobId: text('last_drill_job_id'),
  lastDrillAt: text('last_drill_at'),
  lastDrillState: text('last_drill_state'),
  drillCount: integer('drill_count').notNull().default(0),
  /** Retention runs on the first run of each local day; `restic prune` at most once a week. */
  lastRetentionAt: text('last_retention_at'),
  lastPruneAt: text('last_prune_at'),
  forgottenSincePrune: integer('forgotten_since_prune').notNull().default(0),
});

/** Sizes of the snapshots runs made here (restic 0.14 keeps none in the snapshot). A cache. */
export const backupSnapshots = sqliteTable(
  'backup_snapshots',
  {
    id: text('id').primaryKey(),
    plan: text('plan').notNull(),
    part: text('part').notNull(),
    time: text('time').notNull(),
    sizeBytes: integer('size_bytes'),
    dataAddedBytes: integer('data_added_bytes'),
    files: integer('files'),
  },
  (t) => [index('backup_snapshots_plan').on(t.plan)],
);
