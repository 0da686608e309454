/**
 * A webhook channel's receiving end for system tests: the notifications the service delivered,
 * parsed, by event type. Built on notify-routing's HTTP receiver (one receiver, one place).
 */
import { startHttpReceiver } from '@appliance/notify-routing/test-support';

/** A delivered notification as the webhook channel posts it. */
export interface DeliveredEvent {
  eventType: string;
  title: string;
  message: string;
  severity: string;
}

export async function startEventReceiver() {
  const http = await startHttpReceiver();
  const delivered = () => http.received.map((r) => JSON.parse(r.body) as DeliveredEvent);
  return {
    /** The URL to give a webhook channel. */
    url: http.url('/hook'),
    /** Every notification of `eventType` delivered so far, oldest first. */
    of: (eventType: string) => delivered().filter((e) => e.eventType === eventType),
    /** Forgets what was delivered so far. */
    clear: () => {
      http.received.length = 0;
    },
    close: http.close,
  };
}
