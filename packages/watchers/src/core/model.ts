/**
 * The one model every watcher follows (09, issue 22): a cycle observes the conditions that hold now;
 * `decide` (the raise-once conditions of `@appliance/jobs`) compares them with the conditions
 * already held and says which started (raise once), which ended (record the clear) and which
 * changed value while holding (update silently).
 */
import type { Condition as AnyCondition, Observation as AnyObservation } from '@appliance/jobs';

export {
  type Decision,
  decide,
  groupOnsets,
  type HeldCondition,
  type OnsetGroup,
} from '@appliance/jobs';

/** The catalog events a watcher (or a feature reporting a condition) raises. */
export const WATCHER_EVENT_TYPES = [
  'smart_warning',
  'smart_failure',
  'disk_offline',
  'array_degraded',
  'pool_above_threshold',
  'disk_near_minfreespace',
  'cache_above_threshold',
  'config_drift_detected',
  'container_unhealthy',
  'container_update_available',
  'ups_on_battery',
  'ups_battery_low',
  'certificate_expiring',
  'catalog_check_failed',
  'reboot_required',
  'appliance_update_available',
  'appliance_update_failed',
  'certificate_renewal_failed',
] as const;
export type WatcherEventType = (typeof WATCHER_EVENT_TYPES)[number];

/** A condition that holds now, as a watcher observed it (`Condition` of `@appliance/jobs`, a catalog event). */
export interface Condition extends AnyCondition {
  eventType: WatcherEventType;
}

/** Something a watcher wants shown in `GET /health` without an event (SMART unavailable, a disk in standby). */
export interface Note {
  subject: string;
  message: string;
}

/** What one cycle of a watcher saw (`Observation` of `@appliance/jobs`, with notes). */
export interface Observation extends AnyObservation {
  conditions: Condition[];
  notes?: Note[];
}
