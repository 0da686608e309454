/**
 * The delivery worker's queue over the host's rows: a delivery whose channel was disabled meanwhile,
 * or whose channel no longer reads, ends `failed` at once (never sent); the others are sent with
 * the opened secret and the message the alert became.
 */
import type { Severity } from '../core/catalog.ts';
import type { ChannelType } from '../core/channel-config.ts';
import { parseStoredConfig } from '../core/channel-config.ts';
import type { DeliveryQueueStore, DueDelivery } from '../worker/delivery-worker.ts';
import type { DeliveryOutcome } from '../core/retry.ts';
import type { DeliveryRows } from './ports.ts';

/** A delivery that can never be sent: `failed` at once with its reason, its attempts unchanged. */
export const droppedOutcome = (attempts: number, error: string): DeliveryOutcome => ({
  status: 'failed',
  attempts,
  nextAttemptAt: null,
  lastError: error,
});

export function createDeliveryQueue(rows: DeliveryRows): DeliveryQueueStore {
  return {
    async due(now, limit) {
      const host = rows.hostName();
      const ready: DueDelivery[] = [];
      const dropped: Array<{ id: number; outcome: DeliveryOutcome }> = [];
      for (const row of await rows.due(now.toISOString(), limit)) {
        if (!row.channel.enabled) {
          dropped.push({
            id: row.id,
            outcome: droppedOutcome(row.attempts, 'the channel was disabled before delivery'),
          });
          continue;
        }
        try {
          ready.push({
            id: row.id,
            attempts: row.attempts,
            channel: parseStoredConfig(row.channel.type as ChannelType, JSON.parse(row.channel.config)),
            secret: row.openSecret(),
            message: {
              eventType: row.alert.eventType,
              severity: row.alert.severity as Severity,
              title: row.alert.title,
              message: row.alert.message,
              occurredAt: row.alert.occurredAt,
              host,
            },
          });
        } catch {
          dropped.push({
            id: row.id,
            outcome: droppedOutcome(row.attempts, 'the channel configuration could not be read'),
          });
        }
      }
      if (dropped.length > 0) await rows.recordAll(dropped, now.toISOString());
      return ready;
    },
    record: (id, outcome, at) => rows.record(id, outcome, at.toISOString()),
  };
}
