// Local receivers for tests that deliver real notifications (workspace-only entry).
export * from './http-receiver.ts';
export * from './smtp-receiver.ts';
export * from './memory-channels.ts';
