import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import type { Severity } from './catalog.ts';
import { type AlertDraft, type DeliveryDraft, planRaise, type RaiseStore, raiseEvent } from './raise.ts';

function store(override: Severity | null, routed: Array<{ id: string; enabled: boolean }>) {
  const alerts: AlertDraft[] = [];
  const deliveries: Array<{ alertId: number; channelIds: readonly string[]; dueAt: string }> = [];
  const drafts: DeliveryDraft[] = [];
  const port: RaiseStore = {
    severityOverride: () => override,
    routedChannels: () => routed,
    insertAlert: (a) => alerts.push(a),
    insertDeliveries: (rows) => {
      drafts.push(...rows);
      deliveries.push({
        alertId: rows[0]!.alertId,
        channelIds: rows.map((r) => r.channelId),
        dueAt: rows[0]!.nextAttemptAt,
      });
    },
  };
  return { port, alerts, deliveries, drafts };
}

const now = new Date('2026-11-22T09:00:00.000Z');

describe('raiseEvent (04 §4)', () => {
  it('stamps the default severity and queues one delivery per enabled routed channel', () => {
    const s = store(null, [
      { id: 'c2', enabled: true },
      { id: 'c1', enabled: true },
      { id: 'c3', enabled: false },
    ]);
    const result = raiseEvent(
      s.port,
      { eventType: 'disk_offline', title: 'Disk 2 offline', message: 'gone' },
      now,
    );
    expect(result.alert).toEqual({
      id: 1,
      eventType: 'disk_offline',
      severity: 'critical',
      title: 'Disk 2 offline',
      message: 'gone',
      occurredAt: '2026-11-22T09:00:00.000Z',
    });
    expect(s.deliveries).toEqual([
      { alertId: 1, channelIds: ['c1', 'c2'], dueAt: '2026-11-22T09:00:00.000Z' },
    ]);
    const at = '2026-11-22T09:00:00.000Z';
    expect(s.drafts[0]).toEqual({
      alertId: 1,
      channelId: 'c1',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
    });
  });

  it('stamps the override, and still stores the alert when nothing (enabled) is routed', () => {
    const s = store('info', [{ id: 'c3', enabled: false }]);
    const result = raiseEvent(s.port, { eventType: 'disk_offline', title: 't', message: 'm' }, now);
    expect(result.alert.severity).toBe('info');
    expect(result.deliveryChannelIds).toEqual([]);
    expect(s.alerts).toHaveLength(1);
    expect(s.deliveries).toEqual([]);
  });

  it('refuses an event type outside the catalog (the test event included)', () => {
    const s = store(null, []);
    expect(() => raiseEvent(s.port, { eventType: 'test', title: 't', message: 'm' }, now)).toThrow(AppError);
    expect(s.alerts).toEqual([]);
  });

  it('cuts over-long titles and messages', () => {
    const plan = planRaise(
      { eventType: 'sync_failed', title: 'x'.repeat(500), message: 'y'.repeat(9000) },
      null,
      [],
      'at',
    );
    expect(plan.alert.title).toHaveLength(200);
    expect(plan.alert.message).toHaveLength(4000);
  });
});
