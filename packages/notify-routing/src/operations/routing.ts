/**
 * The routing matrix's operations (04 §2): the catalog with what this installation can raise, and
 * the replace of one event type's severity and routed channels with its audit row.
 */
import type { AuditEntry } from '@appliance/common';
import { EVENT_CATALOG, type EventType } from '../core/catalog.ts';
import type * as v from 'valibot';
import { normalizeRoutingUpdate, type RoutingUpdateBodySchema } from '../core/routing-request.ts';
import {
  applyRoutingReplace,
  planRoutingReplace,
  type RoutingEntry,
  type RoutingStore,
} from '../core/routing.ts';

/** The compiled-in catalog in catalog order; `observed` says whether some feature raises it now. */
export function listEventTypes(observed: (eventType: EventType) => boolean) {
  return {
    eventTypes: EVENT_CATALOG.map(({ eventType, defaultSeverity, description }) => ({
      eventType,
      defaultSeverity,
      description,
      observed: observed(eventType),
    })),
  };
}

/** One write job of the host: the routing store on its handle, and its audit row in the same job. */
export interface RoutingWrites {
  run<T>(job: (store: RoutingStore, audit: (entry: AuditEntry) => void) => T): Promise<T>;
}

/**
 * PUT routing (04 §2.1): check 8 (duplicates after lowercasing) and normalisation (the schemas did
 * checks 6–7), then in one write job the channels checked, override and routes replaced, and the
 * audit row `notification_routing.update`. Returns the entry after the commit.
 */
export async function replaceRouting(
  writes: RoutingWrites,
  eventType: EventType,
  body: v.InferOutput<typeof RoutingUpdateBodySchema>,
): Promise<RoutingEntry> {
  const plan = planRoutingReplace(normalizeRoutingUpdate(eventType, body));
  return writes.run((store, audit) => {
    const stored = applyRoutingReplace(store, plan);
    audit({
      operation: 'notification_routing.update',
      target: plan.eventType,
      details: { severity: stored.severity, channelIds: stored.channelIds },
    });
    return stored;
  });
}
