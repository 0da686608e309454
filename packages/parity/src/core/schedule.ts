import { nextDailySlot } from '@appliance/common';
import type { ParitySettings } from './settings.ts';

const DAY_MS = 86_400_000;

/** The daily slot lives in the shared package (backups and drills use it too); re-exported. */
export { nextDailySlot };

/**
 * The next scheduled sync: the first daily slot after the last scheduled one (or after `since`,
 * when the array was set up, for the first). A slot missed while the service was down is in the
 * past, so the scheduler runs it once at the next start; the one after is the next day's.
 */
export function nextSyncDue(input: {
  settings: ParitySettings;
  timeZone: string;
  lastScheduledAt: Date | null;
  since: Date;
}): Date | null {
  if (!input.settings.syncEnabled) return null;
  return nextDailySlot(input.settings.syncTime, input.timeZone, input.lastScheduledAt ?? input.since);
}

/**
 * The next scheduled scrub: the first `scrubTime` slot at least `scrubEveryDays` days after the last
 * scrub (scheduled or on demand; half a day of slack so a scrub that started a little after its slot
 * does not push the next one a day later); the first comes `scrubEveryDays` after `since`, when the
 * array was set up.
 */
export function nextScrubDue(input: {
  settings: ParitySettings;
  timeZone: string;
  lastScrubAt: Date | null;
  since: Date;
}): Date | null {
  const s = input.settings;
  if (!s.scrubEnabled) return null;
  const base = input.lastScrubAt ?? input.since;
  const earliest = new Date(base.getTime() + s.scrubEveryDays * DAY_MS - DAY_MS / 2);
  return nextDailySlot(s.scrubTime, input.timeZone, earliest);
}
