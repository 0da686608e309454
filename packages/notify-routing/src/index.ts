// Core: catalog, routing, channels, delivery decisions (pure).
export * from './core/catalog.ts';
export * from './core/issues.ts';
export * from './core/routing-request.ts';
export * from './core/routing.ts';
export * from './core/channel-config.ts';
export * from './core/channels.ts';
export * from './core/message.ts';
export * from './core/delivery-request.ts';
export * from './core/retry.ts';
export * from './core/raise.ts';
export * from './core/observed.ts';
// Adapters: the real senders (HTTP client and mailer injectable).
export * from './node/http-sender.ts';
export * from './node/email-sender.ts';
export * from './node/send.ts';
// Delivery worker with injectable timers.
export * from './worker/timers.ts';
export * from './worker/delivery-worker.ts';
export * from './operations/index.ts';
