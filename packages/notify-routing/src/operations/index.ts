export * from './alerts.ts';
export * from './channels.ts';
export * from './delivery-queue.ts';
export * from './ports.ts';
export * from './raise.ts';
export * from './routing.ts';
