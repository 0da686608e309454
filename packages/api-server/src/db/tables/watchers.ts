/** The watchers tables of the appliance database (one schema: ../schema.ts re-exports every table). */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// ── watchers (issue 22, 09 "Watchers") ─────────────────────────────────────────────────────────
/**
 * The conditions watchers (and features reporting one) observed: a row per onset, open while
 * `cleared_at` is null. At most one open row per key, so an ongoing condition is raised once and a
 * restart does not raise it again. Cleared rows are kept 30 days as history.
 */
export const watcherConditions = sqliteTable(
  'watcher_conditions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    key: text('key').notNull(),
    eventType: text('event_type').notNull(),
    /** The watcher (`disks`, `smart`, …) or the feature that reported it. */
    source: text('source').notNull(),
    subject: text('subject').notNull(),
    value: text('value'),
    title: text('title').notNull(),
    message: text('message').notNull(),
    since: text('since').notNull(),
    updatedAt: text('updated_at').notNull(),
    clearedAt: text('cleared_at'),
    /** The notify_alerts row raised at the onset (no foreign key: alerts are history of their own). */
    alertId: integer('alert_id'),
  },
  (t) => [
    uniqueIndex('watcher_conditions_open_key').on(t.key).where(sql`cleared_at is null`),
    index('watcher_conditions_cleared').on(t.clearedAt),
  ],
);

/** The watchers' thresholds, intervals and UPS (singleton; absent = the defaults). */
export const watcherSettings = sqliteTable(
  'watcher_settings',
  {
    id: integer('id').primaryKey(),
    /** JSON of @appliance/watchers' WatcherSettings. */
    settings: text('settings').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [check('watcher_settings_singleton', sql`${t.id} = 1`)],
);

/** SMART values of each disk over time (`GET /disks/:id/smart`). */
export const smartReadings = sqliteTable(
  'smart_readings',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The disk's identity: `wwn:…`, `serial:…`, or `device:/dev/…` for a disk without either. */
    diskKey: text('disk_key').notNull(),
    device: text('device').notNull(),
    at: text('at').notNull(),
    passed: integer('passed'),
    temperatureC: integer('temperature_c'),
    powerOnHours: integer('power_on_hours'),
    /** JSON of the counters read (ATA raw values 5, 187, 188, 197, 198, 199; NVMe health log). */
    counters: text('counters').notNull(),
  },
  (t) => [index('smart_readings_disk_at').on(t.diskKey, t.at)],
);

/**
 * What the service last wrote to each file it generates (smb.conf, snapraid.conf, mount units,
 * stack compose files): the drift watcher reports a change made by someone else.
 */
export const generatedFiles = sqliteTable('generated_files', {
  /** Logical path (`/etc/appliance/samba/smb.conf`), or the real one outside the root prefix. */
  path: text('path').primaryKey(),
  sha256: text('sha256').notNull(),
  /** The text written, for the diff summary (null when not kept: too large or not text). */
  content: text('content'),
  writtenAt: text('written_at').notNull(),
});
