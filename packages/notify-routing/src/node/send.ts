import type { ChannelConfig } from '../core/channel-config.ts';
import { renderDelivery } from '../core/delivery-request.ts';
import type { NotificationMessage } from '../core/message.ts';
import { sendEmail } from './email-sender.ts';
import { type FetchLike, type SendResult, sendHttp } from './http-sender.ts';

export type { FetchLike, SendResult };

/** Sends one message to one channel; never throws (a failure is a `SendResult`). */
export type ChannelSender = (
  channel: ChannelConfig,
  secret: string | null,
  message: NotificationMessage,
  timeoutMs: number,
) => Promise<SendResult>;

export interface SenderOptions {
  /** Default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Default: SMTP through nodemailer. */
  sendEmail?: typeof sendEmail;
}

/** The real sender for every channel type (08 §7.4), with the HTTP client and mailer injected. */
export function createChannelSender(options: SenderOptions = {}): ChannelSender {
  const fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const mail = options.sendEmail ?? sendEmail;
  return async (channel, secret, message, timeoutMs) => {
    const request = renderDelivery(channel, secret, message);
    try {
      switch (request.kind) {
        case 'http':
          return await sendHttp(request, fetch, timeoutMs);
        case 'email':
          return await mail(request, timeoutMs);
        case 'unusable':
          return { success: false, error: request.reason };
      }
    } catch {
      return { success: false, error: 'the delivery failed unexpectedly' };
    }
  };
}
