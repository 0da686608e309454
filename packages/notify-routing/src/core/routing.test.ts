import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import type { EventType, Severity } from './catalog.ts';
import {
  applyRoutingReplace,
  computeRoutingMatrix,
  planRoutingReplace,
  readRoutingEntry,
  readRoutingMatrix,
  type RouteRow,
  type RoutingStore,
  type SeverityOverrideRow,
} from './routing.ts';

const C1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const C2 = 'bbbbbbbb-0000-4000-8000-000000000002';

/** Plain-data store for the core's unit tests (the real one is drizzle in api-server). */
function memoryStore(channels: string[]) {
  const overrides = new Map<string, Severity>();
  let routes: RouteRow[] = [];
  const writes: string[] = [];
  const store: RoutingStore = {
    severityOverrides: (e) =>
      [...overrides].filter(([k]) => !e || k === e).map(([eventType, severity]) => ({ eventType, severity })),
    routes: (e) => routes.filter((r) => !e || r.eventType === e),
    existingChannelIds: (ids) => ids.filter((id) => channels.includes(id)),
    deleteSeverityOverride: (e) => {
      writes.push(`delete override ${e}`);
      overrides.delete(e);
    },
    insertSeverityOverride: (e, s) => {
      writes.push(`insert override ${e}=${s}`);
      overrides.set(e, s);
    },
    deleteRoutes: (e) => {
      writes.push(`delete routes ${e}`);
      routes = routes.filter((r) => r.eventType !== e);
    },
    insertRoutes: (e, ids) => {
      writes.push(`insert routes ${e} ${ids.join(',')}`);
      routes.push(...ids.map((channelId) => ({ eventType: e, channelId })));
    },
  };
  return {
    store,
    overrides,
    get routes() {
      return routes;
    },
    writes,
  };
}

const replace = (store: RoutingStore, eventType: EventType, severity: Severity, channelIds: string[]) =>
  applyRoutingReplace(store, planRoutingReplace({ eventType, severity, channelIds }));

describe('computeRoutingMatrix', () => {
  it('gives a fresh install 29 unrouted default entries in catalog order', () => {
    const matrix = computeRoutingMatrix([], []);
    expect(matrix).toHaveLength(29);
    expect(matrix.every((e) => e.channelIds.length === 0 && e.isDefaultSeverity)).toBe(true);
    expect(matrix.find((e) => e.eventType === 'catalog_check_failed')?.severity).toBe('warning');
    expect(matrix.find((e) => e.eventType === 'sync_succeeded')?.severity).toBe('info');
  });

  it('applies overrides and sorts channel ids in byte order', () => {
    const overrides: SeverityOverrideRow[] = [{ eventType: 'disk_offline', severity: 'warning' }];
    const routes: RouteRow[] = [
      { eventType: 'disk_offline', channelId: C2 },
      { eventType: 'disk_offline', channelId: C1 },
      { eventType: 'no_longer_in_catalog', channelId: C1 },
    ];
    const matrix = computeRoutingMatrix(overrides, routes);
    expect(matrix[2]).toEqual({
      eventType: 'disk_offline',
      severity: 'warning',
      channelIds: [C1, C2],
      isDefaultSeverity: false,
    });
    expect(matrix).toHaveLength(29);
    expect(computeRoutingMatrix(overrides, routes, [C2])[2]!.channelIds).toEqual([C2]);
  });
});

describe('planRoutingReplace', () => {
  it('drops the override when the severity equals the default', () => {
    const plan = planRoutingReplace({
      eventType: 'disk_offline',
      severity: 'critical',
      channelIds: [C2, C1],
    });
    expect(plan.overrideSeverity).toBeNull();
    expect(plan.channelIds).toEqual([C1, C2]);
    expect(plan.requestedChannelIds).toEqual([C2, C1]);
    expect(plan.entry).toEqual({
      eventType: 'disk_offline',
      severity: 'critical',
      channelIds: [C1, C2],
      isDefaultSeverity: true,
    });
  });

  it('keeps an override when it differs from the default', () => {
    const plan = planRoutingReplace({ eventType: 'disk_offline', severity: 'warning', channelIds: [] });
    expect(plan.overrideSeverity).toBe('warning');
    expect(plan.entry.isDefaultSeverity).toBe(false);
  });
});

describe('applyRoutingReplace', () => {
  it('writes in the order of 04 §2.1 and reads the entry back', () => {
    const m = memoryStore([C1, C2]);
    const entry = replace(m.store, 'disk_offline', 'warning', [C2, C1]);
    expect(entry).toEqual({
      eventType: 'disk_offline',
      severity: 'warning',
      channelIds: [C1, C2],
      isDefaultSeverity: false,
    });
    expect(readRoutingEntry(m.store, 'disk_offline')).toEqual(entry);
    expect(m.writes).toEqual([
      'delete override disk_offline',
      'insert override disk_offline=warning',
      'delete routes disk_offline',
      `insert routes disk_offline ${C1},${C2}`,
    ]);
  });

  it('is a full replace: reverting to the default removes the override, unlisted routes go', () => {
    const m = memoryStore([C1, C2]);
    replace(m.store, 'disk_offline', 'warning', [C1, C2]);
    const entry = replace(m.store, 'disk_offline', 'critical', [C2]);
    expect(entry).toEqual({
      eventType: 'disk_offline',
      severity: 'critical',
      channelIds: [C2],
      isDefaultSeverity: true,
    });
    expect(m.overrides.size).toBe(0);
    expect(m.routes).toEqual([{ eventType: 'disk_offline', channelId: C2 }]);
  });

  it('un-routes everything with an empty list, leaving no row for a default entry', () => {
    const m = memoryStore([C1]);
    replace(m.store, 'sync_succeeded', 'info', [C1]);
    expect(readRoutingEntry(m.store, 'sync_succeeded').channelIds).toEqual([C1]);
    replace(m.store, 'sync_succeeded', 'info', []);
    expect(m.routes).toEqual([]);
    expect(m.overrides.size).toBe(0);
    expect(readRoutingMatrix(m.store)).toEqual(computeRoutingMatrix([], []));
  });

  it('refuses an unknown channel before writing anything', () => {
    const m = memoryStore([C1]);
    let error: unknown;
    try {
      replace(m.store, 'disk_offline', 'warning', [C2, C1]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).details).toEqual({ unknownChannelIds: [C2] });
    expect(m.writes).toEqual([]);
  });

  it('leaves other event types alone', () => {
    const m = memoryStore([C1]);
    replace(m.store, 'smart_warning', 'error', [C1]);
    replace(m.store, 'disk_offline', 'info', []);
    expect(readRoutingEntry(m.store, 'smart_warning')).toEqual({
      eventType: 'smart_warning',
      severity: 'error',
      channelIds: [C1],
      isDefaultSeverity: false,
    });
  });
});
