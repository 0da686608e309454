export * from './channels.ts';
export * from './delivery-queue.ts';
export * from './ports.ts';
