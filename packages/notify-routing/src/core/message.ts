import type { Severity } from './catalog.ts';
import { TEST_EVENT_TYPE } from './catalog.ts';

/** What every delivery carries (08 §7.4). */
export interface NotificationMessage {
  eventType: string;
  severity: Severity;
  title: string;
  message: string;
  /** RFC 3339 UTC with milliseconds. */
  occurredAt: string;
  /** The settings hostname. */
  host: string;
}

export const MAX_TITLE_LENGTH = 200;
export const MAX_MESSAGE_LENGTH = 4000;

/** Cut to at most `max` code points (never splitting a surrogate pair). */
export function cutText(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

/** The synthetic message of `POST /notifications/channels/:id/test` (08 §7.3). */
export function testMessage(channelName: string, host: string, occurredAt: string): NotificationMessage {
  return {
    eventType: TEST_EVENT_TYPE,
    severity: 'info',
    title: `Test notification from ${host}`,
    message: `This is a test of the notification channel "${channelName}". If you can read it, the channel works.`,
    occurredAt,
    host,
  };
}
