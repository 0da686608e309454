import { badRequest } from '@appliance/common';
import { type EventType, isEventType, type Severity, defaultSeverity } from './catalog.ts';
import { cutText, MAX_MESSAGE_LENGTH, MAX_TITLE_LENGTH } from './message.ts';

/** What a subsystem raises. */
export interface RaisedEvent {
  eventType: string;
  title: string;
  message: string;
}

/** A `notify_alerts` row before insertion. */
export interface AlertDraft {
  eventType: EventType;
  severity: Severity;
  title: string;
  message: string;
  occurredAt: string;
}

export interface Alert extends AlertDraft {
  id: number;
}

/** A `notify_deliveries` row before insertion: pending, no attempt made yet, due at once. */
export interface DeliveryDraft {
  alertId: number;
  channelId: string;
  status: 'pending';
  attempts: 0;
  nextAttemptAt: string;
  createdAt: string;
  updatedAt: string;
}

export const newDelivery = (alertId: number, channelId: string, dueAt: string): DeliveryDraft => ({
  alertId,
  channelId,
  status: 'pending',
  attempts: 0,
  nextAttemptAt: dueAt,
  createdAt: dueAt,
  updatedAt: dueAt,
});

/**
 * The store port of the raise path (implemented in api-server; synchronous so the whole raise runs in
 * one write job: the alert and its deliveries commit together).
 */
export interface RaiseStore {
  severityOverride(eventType: EventType): Severity | null;
  /** Channels routed to the event type, with whether each is enabled now. */
  routedChannels(eventType: EventType): Array<{ id: string; enabled: boolean }>;
  insertAlert(alert: AlertDraft): number;
  insertDeliveries(deliveries: readonly DeliveryDraft[]): void;
}

/** The pure decision (04 §4): effective severity stamped, one delivery per enabled routed channel. */
export function planRaise(
  event: RaisedEvent & { eventType: EventType },
  override: Severity | null,
  routed: ReadonlyArray<{ id: string; enabled: boolean }>,
  occurredAt: string,
): { alert: AlertDraft; deliveryChannelIds: string[] } {
  return {
    alert: {
      eventType: event.eventType,
      severity: override ?? defaultSeverity(event.eventType),
      title: cutText(event.title, MAX_TITLE_LENGTH),
      message: cutText(event.message, MAX_MESSAGE_LENGTH),
      occurredAt,
    },
    deliveryChannelIds: routed
      .filter((c) => c.enabled)
      .map((c) => c.id)
      .sort(),
  };
}

/** Raise an event inside the caller's write job; returns the stored alert (for the SSE push). */
export function raiseEvent(
  store: RaiseStore,
  event: RaisedEvent,
  now: Date,
): { alert: Alert; deliveryChannelIds: string[] } {
  const { eventType } = event;
  if (!isEventType(eventType)) {
    throw badRequest([{ path: 'eventType', message: 'not an event type of the catalog' }]);
  }
  const occurredAt = now.toISOString();
  const plan = planRaise(
    { ...event, eventType },
    store.severityOverride(eventType),
    store.routedChannels(eventType),
    occurredAt,
  );
  const id = store.insertAlert(plan.alert);
  // One `pending` delivery per channel, due at once.
  if (plan.deliveryChannelIds.length > 0)
    store.insertDeliveries(
      plan.deliveryChannelIds.map((channelId) => newDelivery(id, channelId, occurredAt)),
    );
  return { alert: { id, ...plan.alert }, deliveryChannelIds: plan.deliveryChannelIds };
}
