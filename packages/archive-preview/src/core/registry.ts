/**
 * The registry of every database table (01 §4.6): compared (category, kind, key, label, ignored
 * columns) or deliberately not compared (with the reason). The guard test in registry.test.ts
 * fails when the live schema has a table in neither list.
 */

export const CATEGORIES = [
  'shares',
  'accounts',
  'notifications',
  'system',
  'custom_config',
  'templates',
  'stacks',
] as const;
export type Category = (typeof CATEGORIES)[number];

export type Kind =
  | 'share'
  | 'share_user_permission'
  | 'share_group_permission'
  | 'user'
  | 'user_group'
  | 'user_group_member'
  | 'api_token'
  | 'notification_channel'
  | 'notification_route'
  | 'notification_severity'
  | 'array_settings'
  | 'external_disk'
  | 'parity_settings'
  | 'mover_settings'
  | 'backup_plan'
  | 'hostname'
  | 'timezone'
  | 'backup_passphrase'
  | 'watcher_settings'
  | 'custom_config_file'
  | 'template_file'
  | 'stack_file';

/** A SQLite value as read with safe integers: INTEGER → bigint, REAL → number, BLOB → Uint8Array. */
export type SqlValue = null | bigint | number | string | Uint8Array;
export type Row = Readonly<Record<string, SqlValue>>;
/** Rows of the compared tables of one database, by table name. */
export type DbRows = Readonly<Record<string, readonly Row[]>>;

/** Looks a referenced row's display name up on the same side (a missing row shows its raw id). */
export interface Lookup {
  username(userId: SqlValue): string;
  groupName(groupId: SqlValue): string;
  channelName(channelId: SqlValue): string;
}

export interface ComparedTable {
  table: string;
  category: Category;
  kind: Kind;
  /** Key columns in key order; `[]` for a singleton (at most one row). */
  key: readonly string[];
  /** Only these columns are compared; `null` = every column except the key and ignored ones. */
  columns: readonly string[] | null;
  /** Columns read but never compared (activity or runtime state). */
  ignored: readonly string[];
  label(row: Row, lookup: Lookup): string;
}

const text = (value: SqlValue | undefined): string =>
  value === null || value === undefined
    ? ''
    : value instanceof Uint8Array
      ? Buffer.from(value).toString('hex')
      : String(value);

/** Ignored everywhere it exists (01 §4.6). */
export const IGNORED_EVERYWHERE = ['updated_at'] as const;

export const COMPARED: readonly ComparedTable[] = [
  {
    table: 'shares',
    category: 'shares',
    kind: 'share',
    key: ['name'],
    columns: null,
    ignored: [],
    label: (r) => text(r['name']),
  },
  {
    table: 'share_user_permissions',
    category: 'shares',
    kind: 'share_user_permission',
    key: ['share_name', 'user_id'],
    columns: null,
    ignored: [],
    label: (r, l) => `${text(r['share_name'])} / ${l.username(r['user_id'] ?? null)}`,
  },
  {
    table: 'share_group_permissions',
    category: 'shares',
    kind: 'share_group_permission',
    key: ['share_name', 'group_id'],
    columns: null,
    ignored: [],
    label: (r, l) => `${text(r['share_name'])} / ${l.groupName(r['group_id'] ?? null)}`,
  },
  {
    table: 'users',
    category: 'accounts',
    kind: 'user',
    key: ['id'],
    columns: null,
    ignored: [],
    label: (r) => text(r['username']),
  },
  {
    table: 'user_groups',
    category: 'accounts',
    kind: 'user_group',
    key: ['id'],
    columns: null,
    ignored: [],
    label: (r) => text(r['name']),
  },
  {
    table: 'user_group_members',
    category: 'accounts',
    kind: 'user_group_member',
    key: ['group_id', 'user_id'],
    columns: null,
    ignored: [],
    label: (r, l) => `${l.groupName(r['group_id'] ?? null)} / ${l.username(r['user_id'] ?? null)}`,
  },
  {
    table: 'api_tokens',
    category: 'accounts',
    kind: 'api_token',
    key: ['id'],
    columns: null,
    ignored: ['last_used_at'],
    label: (r, l) => `${l.username(r['user_id'] ?? null)} / ${text(r['name'])}`,
  },
  {
    table: 'notify_channels',
    category: 'notifications',
    kind: 'notification_channel',
    key: ['id'],
    columns: null,
    ignored: [],
    label: (r) => text(r['name']),
  },
  {
    table: 'notify_routes',
    category: 'notifications',
    kind: 'notification_route',
    key: ['event_type', 'channel_id'],
    columns: null,
    ignored: [],
    label: (r, l) => `${text(r['event_type'])} / ${l.channelName(r['channel_id'] ?? null)}`,
  },
  {
    table: 'notify_event_severity',
    category: 'notifications',
    kind: 'notification_severity',
    key: ['event_type'],
    columns: null,
    ignored: [],
    label: (r) => text(r['event_type']),
  },
  {
    table: 'array_settings',
    category: 'system',
    kind: 'array_settings',
    key: [],
    columns: null,
    // A pending foreign-system import is runtime state the import keeps (note array_state_kept).
    ignored: ['id', 'migration_pending'],
    label: () => '',
  },
  {
    table: 'parity_settings',
    category: 'system',
    kind: 'parity_settings',
    key: [],
    columns: null,
    ignored: ['id'],
    label: () => '',
  },
  {
    table: 'mover_settings',
    category: 'system',
    kind: 'mover_settings',
    key: [],
    columns: null,
    ignored: ['id'],
    label: () => '',
  },
  {
    table: 'external_disks',
    category: 'system',
    kind: 'external_disk',
    key: ['label'],
    columns: null,
    // The surrogate id differs between installations for the same disk.
    ignored: ['id'],
    label: (r) => text(r['label']),
  },
  {
    table: 'backup_plans',
    category: 'system',
    kind: 'backup_plan',
    key: ['name'],
    // The sealed repository password compares as stored bytes (a re-sealed password shows changed).
    columns: null,
    ignored: [],
    label: (r) => text(r['name']),
  },
  {
    table: 'settings',
    category: 'system',
    kind: 'hostname',
    key: [],
    columns: ['hostname'],
    ignored: [],
    label: () => '',
  },
  {
    table: 'settings',
    category: 'system',
    kind: 'timezone',
    key: [],
    columns: ['timezone'],
    ignored: [],
    label: () => '',
  },
  {
    table: 'settings',
    category: 'system',
    kind: 'backup_passphrase',
    key: [],
    columns: ['backup_passphrase'],
    ignored: [],
    label: () => '',
  },
  {
    // The watchers' thresholds, intervals and UPS (issue 22): configuration, restored.
    table: 'watcher_settings',
    category: 'system',
    kind: 'watcher_settings',
    key: [],
    columns: ['settings'],
    ignored: [],
    label: () => '',
  },
];

/** `settings` columns that are not compared, and why (the guard test checks every column). */
export const SETTINGS_NOT_COMPARED: Readonly<Record<string, string>> = {
  id: 'The singleton key (always 1).',
  updated_at: 'Activity: when the settings were last saved.',
};

/** The migration table drizzle keeps (the schema version lives there). */
export const MIGRATION_TABLE = '__drizzle_migrations';

export const NOT_COMPARED: Readonly<Record<string, string>> = {
  audit_log: 'History. Never restored; the import appends to the live log.',
  notify_alerts: 'History of notifications; never restored.',
  notify_deliveries: 'Runtime delivery queue of notifications; never restored.',
  machine_key_check: 'Installation identity; blocker archive_other_installation.',
  array_disks: 'Blocker archive_array_mismatch in place; bareMetal.disks on a fresh install.',
  [MIGRATION_TABLE]: 'Schema version; blockers incompatible_archive and archive_newer_version.',
  stacks: "Generated together with each stack's files; differences show as stack_file.",
  catalog_sources: 'Restored with the catalog tree, which templates compares file by file.',
  jobs: 'History of long operations (parity sync and scrub, disk jobs); never restored.',
  schedule_runs: "Runtime: the last slot each schedule ran for; the live installation's own.",
  parity_state: 'Runtime: what the last parity jobs found on the live array; never restored.',
  watcher_conditions:
    'Runtime: the conditions that hold on this machine now (and 30 days of cleared ones); never restored.',
  smart_readings: "History of this machine's disks; never restored.",
  generated_files:
    'Runtime: what this machine last wrote to each generated file (drift watcher); the import records the files it writes.',
  backup_plan_state:
    "Runtime: what this installation's backup runs and drills did (last success, staleness raised); never restored.",
  backup_snapshots: 'A cache of snapshot sizes recorded by the runs here; the repositories are the truth.',
  system_updates:
    "Runtime: this machine's last apt check and its scheduled reboot (issue 38); never restored.",
};

/**
 * Machine-key-sealed columns (00 §4). `secrets.age` carries every one unsealed except those marked
 * `inSecrets: false` (the backup passphrase, and stack `.env` bodies, which travel as `stacks`).
 */
export const SEALED_COLUMNS: readonly {
  table: string;
  column: string;
  key: readonly string[];
  inSecrets: boolean;
}[] = [
  { table: 'settings', column: 'backup_passphrase', key: ['id'], inSecrets: false },
  { table: 'notify_channels', column: 'secret', key: ['id'], inSecrets: true },
  { table: 'stacks', column: 'env', key: ['name'], inSecrets: false },
  // A plan's restic repository password: a restore on a new box must read the old backups.
  { table: 'backup_plans', column: 'repo_password', key: ['name'], inSecrets: true },
];

/** Distinct compared table names, in registry order. */
export const COMPARED_TABLES: readonly string[] = [...new Set(COMPARED.map((t) => t.table))];

/** Whether a column of a compared table takes part in the comparison. */
export function isComparedColumn(entry: ComparedTable, column: string): boolean {
  if (entry.columns !== null) return entry.columns.includes(column);
  if ((IGNORED_EVERYWHERE as readonly string[]).includes(column)) return false;
  return !entry.ignored.includes(column);
}
