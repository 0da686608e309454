export * from './sandbox.ts';
export * from './array.ts';
export * from './lab-array.ts';
export * from './event-receiver.ts';
export { manualTimers, realTimers, type WatcherTimers } from '@appliance/watchers';
