import type { GuardThresholds } from './guard.ts';

/** When parity is maintained and how the guard decides (the settings' parity section). */
export interface ParitySettings extends GuardThresholds {
  /** Daily sync at `syncTime` (local time of the appliance's time zone). */
  syncEnabled: boolean;
  syncTime: string;
  /** A scrub every `scrubEveryDays` days at `scrubTime`, over `scrubPercent` % of the array, of data older than `scrubOlderThanDays` days. */
  scrubEnabled: boolean;
  scrubTime: string;
  scrubEveryDays: number;
  scrubPercent: number;
  scrubOlderThanDays: number;
  /** Run `snapraid touch` before a sync when files have a zero sub-second timestamp. */
  touchBeforeSync: boolean;
}

/**
 * The anchors' defaults (snapraid-aio-script, OpenMediaVault's plugin): a daily sync at night, a
 * weekly scrub of 8 % of the array not scrubbed for 10 days, a delete threshold of 50 files, no
 * update threshold, no automatic sync of a blocked diff.
 */
export const DEFAULT_PARITY_SETTINGS: ParitySettings = {
  syncEnabled: true,
  syncTime: '03:00',
  scrubEnabled: true,
  scrubTime: '04:00',
  scrubEveryDays: 7,
  scrubPercent: 8,
  scrubOlderThanDays: 10,
  deleteThreshold: 50,
  updateThreshold: null,
  autoSyncAfterBlockedDays: null,
  touchBeforeSync: true,
};

export { TIME_OF_DAY } from '@appliance/common';

/** Bounds of each number (inclusive); the server's schema and this check use the same table. */
export const PARITY_LIMITS = {
  scrubEveryDays: [1, 365],
  scrubPercent: [1, 100],
  scrubOlderThanDays: [0, 3650],
  deleteThreshold: [0, 10_000_000],
  updateThreshold: [0, 10_000_000],
  autoSyncAfterBlockedDays: [1, 365],
} as const;
