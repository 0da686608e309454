/**
 * The compiled-in event catalog (04 §1). Its order is the catalog order: `GET /notifications/routing`,
 * `GET /notifications/event-types`, the path parameter enum and the OpenAPI enum all derive from it.
 */

/** In order of importance, least first. */
export const SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface CatalogEntry {
  eventType: string;
  defaultSeverity: Severity;
  description: string;
}

export const EVENT_CATALOG = [
  {
    eventType: 'smart_warning',
    defaultSeverity: 'warning',
    description: "A disk's SMART data crosses a warning threshold.",
  },
  {
    eventType: 'smart_failure',
    defaultSeverity: 'critical',
    description: 'SMART reports a disk as failing.',
  },
  {
    eventType: 'disk_offline',
    defaultSeverity: 'critical',
    description: 'An array disk disappears or its mount is lost.',
  },
  {
    eventType: 'array_degraded',
    defaultSeverity: 'critical',
    description: 'The array runs without full parity protection.',
  },
  {
    eventType: 'sync_succeeded',
    defaultSeverity: 'info',
    description: 'A parity sync finishes (opt-in: frequent and low value, unrouted unless asked for).',
  },
  { eventType: 'sync_failed', defaultSeverity: 'error', description: 'A parity sync fails.' },
  {
    eventType: 'sync_blocked_threshold',
    defaultSeverity: 'critical',
    description: 'The deletion-threshold guard blocks a sync.',
  },
  { eventType: 'scrub_errors_found', defaultSeverity: 'error', description: 'A scrub finds errors.' },
  {
    eventType: 'pool_above_threshold',
    defaultSeverity: 'warning',
    description: 'Pool usage passes its threshold.',
  },
  {
    eventType: 'disk_near_minfreespace',
    defaultSeverity: 'warning',
    description: 'A data disk nears its minimum free space.',
  },
  {
    eventType: 'cache_above_threshold',
    defaultSeverity: 'warning',
    description: 'Cache usage passes its threshold.',
  },
  {
    eventType: 'mover_skipping_files',
    defaultSeverity: 'warning',
    description: 'The mover skips files (in use, no space).',
  },
  {
    eventType: 'config_drift_detected',
    defaultSeverity: 'warning',
    description: 'A generated config file was changed outside the service.',
  },
  {
    eventType: 'container_unhealthy',
    defaultSeverity: 'error',
    description: 'A stack container reports unhealthy.',
  },
  {
    eventType: 'container_update_available',
    defaultSeverity: 'info',
    description: 'A newer image exists for a stack container.',
  },
  {
    eventType: 'appliance_update_available',
    defaultSeverity: 'info',
    description: 'A newer appliance release exists.',
  },
  {
    eventType: 'appliance_update_failed',
    defaultSeverity: 'error',
    description: 'An appliance update failed.',
  },
  {
    eventType: 'reboot_required',
    defaultSeverity: 'warning',
    description: 'An installed update needs a reboot.',
  },
  { eventType: 'ups_on_battery', defaultSeverity: 'warning', description: 'The UPS switched to battery.' },
  { eventType: 'ups_battery_low', defaultSeverity: 'critical', description: 'The UPS battery is low.' },
  {
    eventType: 'login_failure_burst',
    defaultSeverity: 'critical',
    description: 'Password failures cross the lock-out threshold.',
  },
  {
    eventType: 'credential_reset',
    defaultSeverity: 'critical',
    description: 'A credential was reset locally.',
  },
  {
    eventType: 'certificate_expiring',
    defaultSeverity: 'warning',
    description: 'The TLS certificate expires soon.',
  },
  {
    eventType: 'certificate_renewal_failed',
    defaultSeverity: 'error',
    description: 'Certificate renewal failed.',
  },
  {
    eventType: 'config_backup_failed',
    defaultSeverity: 'error',
    description: 'A scheduled config backup failed.',
  },
  { eventType: 'appdata_backup_failed', defaultSeverity: 'error', description: 'An app-data backup failed.' },
  {
    eventType: 'backup_destination_stale',
    defaultSeverity: 'warning',
    description: 'A backup destination has not received a backup in time.',
  },
  { eventType: 'restore_drill_failed', defaultSeverity: 'error', description: 'A restore drill failed.' },
  {
    eventType: 'catalog_check_failed',
    defaultSeverity: 'warning',
    description:
      "A template catalog's signature, serial or archive check fails (never for a mere network failure).",
  },
] as const satisfies readonly CatalogEntry[];

export type EventType = (typeof EVENT_CATALOG)[number]['eventType'];

/** The catalog's event types, in catalog order (for picklists and OpenAPI enums). */
export const EVENT_TYPES = EVENT_CATALOG.map((e) => e.eventType) as unknown as readonly [
  EventType,
  ...EventType[],
];

/** The synthetic event type of a channel test send: not in the catalog, never routable. */
export const TEST_EVENT_TYPE = 'test';

const defaults = new Map<string, Severity>(EVENT_CATALOG.map((e) => [e.eventType, e.defaultSeverity]));

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && defaults.has(value);
}

export function defaultSeverity(eventType: EventType): Severity {
  return defaults.get(eventType)!;
}

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}
