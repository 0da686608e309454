/** The routing, alert and raise operations on in-memory ports. */
import { type AuditEntry, Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import type { EventType, Severity } from '../core/catalog.ts';
import type { AlertDraft, RaiseStore } from '../core/raise.ts';
import type { RouteRow, RoutingStore } from '../core/routing.ts';
import { type AlertListItem, listAlerts } from './alerts.ts';
import { createRaiser } from './raise.ts';
import { listEventTypes, type RoutingWrites, replaceRouting } from './routing.ts';

const C1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const C2 = 'bbbbbbbb-0000-4000-8000-000000000002';

/** A routing store and write jobs whose audit rows commit only when the job succeeds. */
function routing(channels: string[]) {
  const overrides = new Map<string, Severity>();
  let routes: RouteRow[] = [];
  const audits: AuditEntry[] = [];
  const store: RoutingStore = {
    severityOverrides: (e) =>
      [...overrides].filter(([k]) => !e || k === e).map(([eventType, severity]) => ({ eventType, severity })),
    routes: (e) => routes.filter((r) => !e || r.eventType === e),
    existingChannelIds: (ids) => ids.filter((id) => channels.includes(id)),
    deleteSeverityOverride: (e) => void overrides.delete(e),
    insertSeverityOverride: (e, s) => void overrides.set(e, s),
    deleteRoutes: (e) => {
      routes = routes.filter((r) => r.eventType !== e);
    },
    insertRoutes: (e, ids) => void routes.push(...ids.map((channelId) => ({ eventType: e, channelId }))),
  };
  const writes: RoutingWrites = {
    run: async (job) => {
      const pending: AuditEntry[] = [];
      const result = job(store, (entry) => pending.push(entry));
      audits.push(...pending);
      return result;
    },
  };
  return { store, writes, audits };
}

describe('listEventTypes', () => {
  it('lists the catalog in order with defaults and whether each is observed', () => {
    const { eventTypes } = listEventTypes((e) => e === 'disk_offline');
    expect(eventTypes.length).toBeGreaterThan(20);
    expect(eventTypes.filter((e) => e.observed).map((e) => e.eventType)).toEqual(['disk_offline']);
    expect(eventTypes.find((e) => e.eventType === 'disk_offline')).toMatchObject({
      defaultSeverity: 'critical',
      description: expect.any(String),
    });
  });
});

describe('replaceRouting', () => {
  it('lowercases and stores the channels, returns the entry read back, audits it', async () => {
    const r = routing([C1, C2]);
    const entry = await replaceRouting(r.writes, 'disk_offline', {
      severity: 'warning',
      channelIds: [C2.toUpperCase(), C1],
    });
    expect(entry).toEqual({
      eventType: 'disk_offline',
      severity: 'warning',
      channelIds: [C1, C2],
      isDefaultSeverity: false,
    });
    expect(r.audits).toEqual([
      {
        operation: 'notification_routing.update',
        target: 'disk_offline',
        details: { severity: 'warning', channelIds: [C1, C2] },
      },
    ]);
  });

  it('refuses duplicates after lowercasing and unknown channels; nothing written or audited', async () => {
    const r = routing([C1]);
    const refused = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e as Refusal,
      );
    const dup = await refused(
      replaceRouting(r.writes, 'disk_offline', { severity: 'error', channelIds: [C1, C1.toUpperCase()] }),
    );
    expect(dup).toBeInstanceOf(Refusal);
    expect(dup?.code).toBe('bad_request');
    const unknown = await refused(
      replaceRouting(r.writes, 'disk_offline', { severity: 'error', channelIds: [C2] }),
    );
    expect(unknown?.code).toBe('notification_unknown_channel');
    expect(r.store.routes()).toEqual([]);
    expect(r.store.severityOverrides()).toEqual([]);
    expect(r.audits).toEqual([]);
  });
});

describe('listAlerts', () => {
  const alerts: AlertListItem[] = [3, 2, 1].map((id) => ({
    id,
    eventType: 'disk_offline',
    severity: 'critical',
    title: `t${id}`,
    message: 'm',
    occurredAt: 'then',
  }));
  const rows = {
    page: (limit: number, before: number | null) =>
      alerts.filter((a) => before === null || a.id < before).slice(0, limit),
  };
  it('gives the next page’s start only when the page is full', () => {
    expect(listAlerts(rows, 2, null)).toMatchObject({ alerts: [{ id: 3 }, { id: 2 }], nextBefore: 2 });
    expect(listAlerts(rows, 2, 2)).toMatchObject({ alerts: [{ id: 1 }], nextBefore: null });
    expect(listAlerts(rows, 5, null).nextBefore).toBeNull();
  });
});

describe('createRaiser', () => {
  function deps() {
    const alerts: AlertDraft[] = [];
    const deliveries: string[][] = [];
    const announced: number[] = [];
    const log: string[] = [];
    const store: RaiseStore = {
      severityOverride: (e: EventType) => (e === 'disk_offline' ? 'warning' : null),
      routedChannels: () => [
        { id: C2, enabled: true },
        { id: C1, enabled: false },
      ],
      insertAlert: (a) => alerts.push(a),
      insertDeliveries: (rows) => void deliveries.push(rows.map((r) => r.channelId)),
    };
    const raiser = createRaiser<string>({
      write: async (job) => {
        const result = job('job-db');
        log.push('commit');
        return result;
      },
      store: (db) => {
        log.push(`store on ${db}`);
        return store;
      },
      clock: { now: () => new Date('2026-11-28T12:00:00Z') },
      announce: (alert) => {
        log.push('announce');
        announced.push(alert.id);
      },
    });
    return { raiser, alerts, deliveries, announced, log };
  }

  it('raise: the alert with its effective severity and deliveries in one write job, announced after the commit', async () => {
    const d = deps();
    await d.raiser.raise({ eventType: 'disk_offline', title: 'Disk gone', message: 'm' });
    expect(d.alerts).toEqual([
      {
        eventType: 'disk_offline',
        severity: 'warning',
        title: 'Disk gone',
        message: 'm',
        occurredAt: '2026-11-28T12:00:00.000Z',
      },
    ]);
    expect(d.deliveries).toEqual([[C2]]);
    expect(d.log).toEqual(['store on job-db', 'commit', 'announce']);
    expect(d.announced).toEqual([1]);
  });

  it('within: raises on the caller’s handle and announces only when the caller says so', () => {
    const d = deps();
    const raised = d.raiser.within('caller-db', { eventType: 'sync_succeeded', title: 'T', message: 'm' });
    expect(raised.alertId).toBe(1);
    expect(d.log).toEqual(['store on caller-db']);
    expect(d.alerts[0]?.severity).not.toBe('warning');
    raised.announce();
    expect(d.announced).toEqual([1]);
  });

  it('refuses an event outside the catalog; nothing stored or announced', async () => {
    const d = deps();
    await expect(d.raiser.raise({ eventType: 'nope', title: 'T', message: 'm' })).rejects.toBeInstanceOf(
      Refusal,
    );
    expect(d.alerts).toEqual([]);
    expect(d.announced).toEqual([]);
  });
});
