export * from './sandbox.ts';
export * from './array.ts';
export { manualTimers, realTimers, type WatcherTimers } from '../services/watchers.ts';
