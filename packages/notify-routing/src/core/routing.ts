import { EVENT_CATALOG, type EventType, type Severity, defaultSeverity, isEventType } from './catalog.ts';
import type { RoutingUpdate } from './routing-request.ts';
import { unknownChannelError } from './routing-request.ts';

/** The wire shape of one routing entry (04 §1). */
export interface RoutingEntry {
  eventType: EventType;
  severity: Severity;
  /** Lowercase, sorted ascending in byte order, never null. */
  channelIds: string[];
  /** True exactly when no severity override is stored. */
  isDefaultSeverity: boolean;
}

/** A `notify_event_severity` row. */
export interface SeverityOverrideRow {
  eventType: string;
  severity: Severity;
}

/** A `notify_routes` row. */
export interface RouteRow {
  eventType: string;
  channelId: string;
}

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function sortChannelIds(ids: Iterable<string>): string[] {
  return [...ids].sort(byteOrder);
}

/** One entry from an event type's stored override (or none) and its routed channel ids. */
export function routingEntry(
  eventType: EventType,
  override: Severity | null,
  channelIds: Iterable<string>,
): RoutingEntry {
  return {
    eventType,
    severity: override ?? defaultSeverity(eventType),
    channelIds: sortChannelIds(channelIds),
    isDefaultSeverity: override === null,
  };
}

/**
 * The routing matrix: exactly one entry per catalog event, in catalog order, including events never
 * routed. Rows naming an event type outside the catalog are ignored; when `channelIds` is given,
 * routes to channels outside it are ignored too (the foreign key normally guarantees that).
 */
export function computeRoutingMatrix(
  overrides: readonly SeverityOverrideRow[],
  routes: readonly RouteRow[],
  channelIds?: Iterable<string>,
): RoutingEntry[] {
  const known = channelIds ? new Set(channelIds) : null;
  const severity = new Map<string, Severity>();
  for (const row of overrides) severity.set(row.eventType, row.severity);
  const routed = new Map<string, string[]>();
  for (const row of routes) {
    if (known && !known.has(row.channelId)) continue;
    const list = routed.get(row.eventType) ?? [];
    list.push(row.channelId);
    routed.set(row.eventType, list);
  }
  return EVENT_CATALOG.map(({ eventType }) =>
    routingEntry(eventType, severity.get(eventType) ?? null, routed.get(eventType) ?? []),
  );
}

/** What a full replace of one event type's routing writes (04 §2.1). */
export interface RoutingReplacePlan {
  eventType: EventType;
  /** The override row to store, or `null`: the severity equals the default and no row may remain. */
  overrideSeverity: Severity | null;
  /** The routes after the write, sorted. `[]` un-routes every channel. */
  channelIds: string[];
  /** The requested ids in request order (for `details.unknownChannelIds`). */
  requestedChannelIds: string[];
  /** The entry the write produces. */
  entry: RoutingEntry;
}

export function planRoutingReplace(update: RoutingUpdate): RoutingReplacePlan {
  const overrideSeverity = update.severity === defaultSeverity(update.eventType) ? null : update.severity;
  const entry = routingEntry(update.eventType, overrideSeverity, update.channelIds);
  return {
    eventType: update.eventType,
    overrideSeverity,
    channelIds: entry.channelIds,
    requestedChannelIds: [...update.channelIds],
    entry,
  };
}

/**
 * The store port (implemented in api-server with drizzle). Every method is synchronous so that a
 * whole replace runs inside one write job (its own savepoint in a group commit).
 */
export interface RoutingStore {
  /** Override rows, all of them or only the given event type's. */
  severityOverrides(eventType?: EventType): SeverityOverrideRow[];
  /** Route rows, all of them or only the given event type's. */
  routes(eventType?: EventType): RouteRow[];
  /** Which of `ids` name an existing channel (enabled or not). */
  existingChannelIds(ids: readonly string[]): string[];
  deleteSeverityOverride(eventType: EventType): void;
  insertSeverityOverride(eventType: EventType, severity: Severity): void;
  deleteRoutes(eventType: EventType): void;
  insertRoutes(eventType: EventType, channelIds: readonly string[]): void;
}

export function readRoutingMatrix(store: RoutingStore): RoutingEntry[] {
  return computeRoutingMatrix(store.severityOverrides(), store.routes());
}

export function readRoutingEntry(store: RoutingStore, eventType: EventType): RoutingEntry {
  if (!isEventType(eventType)) throw new Error(`not a catalog event type: ${String(eventType)}`);
  const override = store.severityOverrides(eventType)[0]?.severity ?? null;
  return routingEntry(
    eventType,
    override,
    store.routes(eventType).map((r) => r.channelId),
  );
}

/**
 * Apply a plan inside the caller's transaction, in the order of 04 §2.1: check the channels (throws
 * `400 notification_unknown_channel`, nothing written) → replace the override → replace the routes.
 * Returns the entry read back from the store (04 §2.1 step 10: the value GET returns next).
 */
export function applyRoutingReplace(store: RoutingStore, plan: RoutingReplacePlan): RoutingEntry {
  const unknown = unknownChannelError(plan.requestedChannelIds, store.existingChannelIds(plan.channelIds));
  if (unknown) throw unknown;
  store.deleteSeverityOverride(plan.eventType);
  if (plan.overrideSeverity !== null) store.insertSeverityOverride(plan.eventType, plan.overrideSeverity);
  store.deleteRoutes(plan.eventType);
  if (plan.channelIds.length > 0) store.insertRoutes(plan.eventType, plan.channelIds);
  return readRoutingEntry(store, plan.eventType);
}
