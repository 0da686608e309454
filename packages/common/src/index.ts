export * from './errors.ts';
export * from './host-paths.ts';
export * from './command.ts';
export * from './clock.ts';
export * from './atomic-write.ts';
export * from './erase-phrase.ts';
export * from './inventory/model.ts';
