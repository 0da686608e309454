/**
 * The one schema definition of the appliance database (00 §4). Migrations in ../../drizzle are
 * generated from it by `pnpm --filter @appliance/api-server db:generate` and never edited after
 * they ship (the generator's output only gets STRICT appended, see tools/add-strict.mjs).
 */
import { sql } from 'drizzle-orm';
import {
  blob,
  check,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

const sealed = (name: string) => blob(name, { mode: 'buffer' });
const timestamps = {
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
};

// ── accounts (08 §2–§5) ────────────────────────────────────────────────────────────────────────
export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    username: text('username').notNull(),
    role: text('role', { enum: ['admin', 'viewer', 'share-only'] }).notNull(),
    passwordHash: text('password_hash'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('users_username_lower').on(sql`lower(${t.username})`),
    uniqueIndex('users_one_admin').on(t.role).where(sql`role = 'admin'`),
    check('users_role_check', sql`${t.role} in ('admin', 'viewer', 'share-only')`),
  ],
);

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    role: text('role', { enum: ['admin', 'viewer'] }).notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at'),
    lastUsedAt: text('last_used_at'),
  },
  (t) => [
    index('api_tokens_user').on(t.userId),
    check('api_tokens_role_check', sql`${t.role} in ('admin', 'viewer')`),
  ],
);

/**
 * Browser sessions (docs/decisions/web-ui.md): the cookie holds a random secret, the row only its
 * SHA-256. A session ends at `expires_at` (absolute) or after the idle limit since `last_used_at`,
 * and when it is deleted (sign-out, owner deleted).
 */
export const webSessions = sqliteTable(
  'web_sessions',
  {
    id: text('id').primaryKey(),
    secretHash: text('secret_hash').notNull().unique(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [index('web_sessions_user').on(t.userId)],
);

export const userGroups = sqliteTable(
  'user_groups',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('user_groups_name_lower').on(sql`lower(${t.name})`)],
);

export const userGroupMembers = sqliteTable(
  'user_group_members',
  {
    groupId: text('group_id')
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index('user_group_members_user').on(t.userId)],
);

// ── installation (00 §4, 08 §8, §11) ───────────────────────────────────────────────────────────
export const machineKeyCheck = sqliteTable(
  'machine_key_check',
  {
    id: integer('id').primaryKey(),
    hmac: text('hmac').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [check('machine_key_check_singleton', sql`${t.id} = 1`)],
);

export const settings = sqliteTable(
  'settings',
  {
    id: integer('id').primaryKey(),
    hostname: text('hostname').notNull(),
    timezone: text('timezone').notNull(),
    backupPassphrase: sealed('backup_passphrase'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [check('settings_singleton', sql`${t.id} = 1`)],
);

export const auditLog = sqliteTable(
  'audit_log',
  {
    // A plain rowid key: ids still only grow (a new row takes the largest id + 1, and pruning
    // always keeps the newest row), without AUTOINCREMENT's sqlite_sequence update on every insert
    // (≈5 µs of every audited write; audit_log is written by every change, 04 §7 / 06 §8).
    id: integer('id').primaryKey(),
    at: text('at').notNull(),
    actor: text('actor').notNull(),
    tokenId: text('token_id'),
    operation: text('operation').notNull(),
    target: text('target').notNull(),
    outcome: text('outcome', { enum: ['ok', 'partial', 'failed'] }).notNull(),
    details: text('details').notNull().default('{}'),
  },
  (t) => [
    // No index on `at`: only the daily prune filters on it (a scan of the table once a day), while
    // an index costs every audited write a second b-tree insert.
    check('audit_log_outcome_check', sql`${t.outcome} in ('ok', 'partial', 'failed')`),
  ],
);

// ── shares (08 §6, 06) ─────────────────────────────────────────────────────────────────────────
export const shares = sqliteTable(
  'shares',
  {
    name: text('name').primaryKey(),
    cacheMode: text('cache_mode', { enum: ['cache-then-move', 'cache-only', 'array-only'] }).notNull(),
    createPolicy: text('create_policy', { enum: ['mfs', 'lfs', 'ff', 'epmfs', 'mspmfs'] }).notNull(),
    smbEnabled: integer('smb_enabled').notNull().default(1),
    smbBrowseable: integer('smb_browseable').notNull().default(1),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('shares_name_lower').on(sql`lower(${t.name})`),
    check('shares_cache_mode_check', sql`${t.cacheMode} in ('cache-then-move', 'cache-only', 'array-only')`),
    check('shares_create_policy_check', sql`${t.createPolicy} in ('mfs', 'lfs', 'ff', 'epmfs', 'mspmfs')`),
  ],
);

const accessCheck = (name: string, col: unknown) =>
  check(name, sql`${col} in ('none', 'read-only', 'read-write')`);

export const shareUserPermissions = sqliteTable(
  'share_user_permissions',
  {
    shareName: text('share_name')
      .notNull()
      .references(() => shares.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    access: text('access', { enum: ['none', 'read-only', 'read-write'] }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.shareName, t.userId] }),
    index('share_user_permissions_user').on(t.userId),
    accessCheck('share_user_permissions_access_check', t.access),
  ],
);

export const shareGroupPermissions = sqliteTable(
  'share_group_permissions',
  {
    shareName: text('share_name')
      .notNull()
      .references(() => shares.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    groupId: text('group_id')
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
    access: text('access', { enum: ['none', 'read-only', 'read-write'] }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.shareName, t.groupId] }),
    index('share_group_permissions_group').on(t.groupId),
    accessCheck('share_group_permissions_access_check', t.access),
  ],
);

// ── notifications (04, 08 §7) ──────────────────────────────────────────────────────────────────
export const notifyChannels = sqliteTable(
  'notify_channels',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    type: text('type', { enum: ['webhook', 'ntfy', 'gotify', 'discord', 'email'] }).notNull(),
    enabled: integer('enabled').notNull(),
    /** The type fields (08 §7.1) as a JSON object with only the fields that are set. */
    config: text('config').notNull().default('{}'),
    secret: sealed('secret'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('notify_channels_name_lower').on(sql`lower(${t.name})`),
    check('notify_channels_type_check', sql`${t.type} in ('webhook', 'ntfy', 'gotify', 'discord', 'email')`),
  ],
);

const severityCheck = (name: string, col: unknown) =>
  check(name, sql`${col} in ('info', 'warning', 'error', 'critical')`);

export const notifyEventSeverity = sqliteTable(
  'notify_event_severity',
  {
    eventType: text('event_type').primaryKey(),
    severity: text('severity', { enum: ['info', 'warning', 'error', 'critical'] }).notNull(),
  },
  (t) => [severityCheck('notify_event_severity_check', t.severity)],
);

export const notifyRoutes = sqliteTable(
  'notify_routes',
  {
    eventType: text('event_type').notNull(),
    channelId: text('channel_id')
      .notNull()
      .references(() => notifyChannels.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.eventType, t.channelId] }),
    index('notify_routes_channel').on(t.channelId),
  ],
);

export const notifyAlerts = sqliteTable(
  'notify_alerts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    eventType: text('event_type').notNull(),
    severity: text('severity', { enum: ['info', 'warning', 'error', 'critical'] }).notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    occurredAt: text('occurred_at').notNull(),
  },
  (t) => [severityCheck('notify_alerts_severity_check', t.severity)],
);

export const notifyDeliveries = sqliteTable(
  'notify_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    alertId: integer('alert_id')
      .notNull()
      .references(() => notifyAlerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => notifyChannels.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at'),
    lastError: text('last_error'),
    ...timestamps,
  },
  (t) => [
    index('notify_deliveries_due').on(t.status, t.nextAttemptAt),
    check('notify_deliveries_status_check', sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);

// ── disks (03 §3, 07 §2, 08 §9–§10) ───────────────────────────────────────────────────────────
export const arrayDisks = sqliteTable(
  'array_disks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    role: text('role', { enum: ['data', 'parity', 'cache'] }).notNull(),
    roleIndex: integer('role_index').notNull(),
    device: text('device').notNull(),
    filesystem: text('filesystem', { enum: ['xfs', 'ext4', 'btrfs'] }).notNull(),
    fsUuid: text('fs_uuid').notNull().unique(),
    wwn: text('wwn'),
    serial: text('serial'),
    byIdName: text('by_id_name'),
    weakIdentity: integer('weak_identity').notNull(),
    sizeBytes: integer('size_bytes'),
    mountpoint: text('mountpoint').notNull().unique(),
    removalState: text('removal_state', { enum: ['evacuating', 'evacuated', 'unpooled', 'unlisted'] }),
  },
  (t) => [
    uniqueIndex('array_disks_role_index').on(t.role, t.roleIndex),
    uniqueIndex('array_disks_one_cache').on(t.role).where(sql`role = 'cache'`),
    check('array_disks_role_check', sql`${t.role} in ('data', 'parity', 'cache')`),
    check('array_disks_role_index_check', sql`${t.roleIndex} >= 1`),
    check('array_disks_fs_check', sql`${t.filesystem} in ('xfs', 'ext4', 'btrfs')`),
    check(
      'array_disks_removal_check',
      sql`${t.removalState} is null or ${t.removalState} in ('evacuating', 'evacuated', 'unpooled', 'unlisted')`,
    ),
  ],
);

export const arraySettings = sqliteTable(
  'array_settings',
  {
    id: integer('id').primaryKey(),
    createPolicy: text('create_policy').notNull(),
    migrationPending: integer('migration_pending').notNull().default(0),
    migrationPendingSince: text('migration_pending_since'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [check('array_settings_singleton', sql`${t.id} = 1`)],
);

export const externalDisks = sqliteTable(
  'external_disks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    label: text('label').notNull(),
    device: text('device').notNull(),
    filesystem: text('filesystem'),
    fsUuid: text('fs_uuid').unique(),
    wwn: text('wwn'),
    serial: text('serial'),
    byIdName: text('by_id_name'),
    weakIdentity: integer('weak_identity').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    backupDestination: integer('backup_destination').notNull().default(0),
    createdAt: text('created_at').notNull(),
    formattedAt: text('formatted_at'),
  },
  (t) => [uniqueIndex('external_disks_label_nocase').on(sql`${t.label} collate nocase`)],
);

// ── apps (02) ──────────────────────────────────────────────────────────────────────────────────
export const catalogSources = sqliteTable(
  'catalog_sources',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['builtin', 'directory', 'https'] }).notNull(),
    position: integer('position').notNull().unique(),
    url: text('url'),
    publicKey: text('public_key'),
    serial: integer('serial'),
    lastRefreshedAt: text('last_refreshed_at'),
    lastError: text('last_error'),
    addedAt: text('added_at').notNull(),
  },
  (t) => [check('catalog_sources_kind_check', sql`${t.kind} in ('builtin', 'directory', 'https')`)],
);

export const stacks = sqliteTable(
  'stacks',
  {
    name: text('name').primaryKey(),
    templateSource: text('template_source'),
    templateId: text('template_id'),
    templateRevision: integer('template_revision'),
    compose: text('compose').notNull(),
    env: sealed('env').notNull(),
    installedAt: text('installed_at').notNull(),
    manuallyEdited: integer('manually_edited').notNull().default(0),
    pending: integer('pending').notNull().default(1),
  },
  (t) => [
    index('stacks_template').on(t.templateId),
    check(
      'stacks_template_all_or_none',
      sql`(${t.templateSource} is null and ${t.templateId} is null and ${t.templateRevision} is null) or (${t.templateSource} is not null and ${t.templateId} is not null and ${t.templateRevision} is not null)`,
    ),
  ],
);

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

// ── parity (issue 27) ──────────────────────────────────────────────────────────────────────────
export const paritySettings = sqliteTable(
  'parity_settings',
  {
    id: integer('id').primaryKey(),
    syncEnabled: integer('sync_enabled').notNull(),
    syncTime: text('sync_time').notNull(),
    scrubEnabled: integer('scrub_enabled').notNull(),
    scrubTime: text('scrub_time').notNull(),
    scrubEveryDays: integer('scrub_every_days').notNull(),
    scrubPercent: integer('scrub_percent').notNull(),
    scrubOlderThanDays: integer('scrub_older_than_days').notNull(),
    deleteThreshold: integer('delete_threshold').notNull(),
    updateThreshold: integer('update_threshold'),
    autoSyncAfterBlockedDays: integer('auto_sync_after_blocked_days'),
    touchBeforeSync: integer('touch_before_sync').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [check('parity_settings_singleton', sql`${t.id} = 1`)],
);

/** What the last parity jobs found (a GET reads this, never snapraid). */
export const parityState = sqliteTable(
  'parity_state',
  {
    id: integer('id').primaryKey(),
    /** JSON: the last `snapraid diff` (counts, paths, when, which job). */
    lastDiff: text('last_diff'),
    /** JSON: the last `snapraid status` facts and when. */
    lastStatus: text('last_status'),
    /** When the current streak of guard-blocked syncs began (null: the last sync was not blocked). */
    blockedSince: text('blocked_since'),
  },
  (t) => [check('parity_state_singleton', sql`${t.id} = 1`)],
);

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

// ── mover (issue 37) ───────────────────────────────────────────────────────────────────────────
/** The mover's schedule and verification (singleton; absent = the defaults). */
export const moverSettings = sqliteTable(
  'mover_settings',
  {
    id: integer('id').primaryKey(),
    enabled: integer('enabled').notNull(),
    /** Daily at this local time (HH:MM), before the parity sync. */
    time: text('time').notNull(),
    /** `size-mtime` or `sha256`: how a copy is verified before the cache's is removed. */
    verify: text('verify', { enum: ['size-mtime', 'sha256'] }).notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [check('mover_settings_singleton', sql`${t.id} = 1`)],
);

// ── updates and reboot (issue 38) ──────────────────────────────────────────────────────────────
/** The last apt check and the scheduled reboot (singleton, runtime of this machine). */
export const systemUpdates = sqliteTable(
  'system_updates',
  {
    id: integer('id').primaryKey(),
    /** RFC 3339 UTC of the last check that ended (null: never checked). */
    checkedAt: text('checked_at'),
    /** JSON array of @appliance/updates' UpgradablePackage: what the last successful check found. */
    upgradable: text('upgradable').notNull().default('[]'),
    /** Why the last check failed (null: it succeeded). */
    checkError: text('check_error'),
    /** When the scheduled reboot is due (null: none scheduled). */
    rebootAt: text('reboot_at'),
    /** Who scheduled it. */
    rebootBy: text('reboot_by'),
  },
  (t) => [check('system_updates_singleton', sql`${t.id} = 1`)],
);
