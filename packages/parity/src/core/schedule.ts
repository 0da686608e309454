import { createRequire } from 'node:module';
import { onFirstUse } from '@appliance/common';
import type * as Croner from 'croner';
import type { ParitySettings } from './settings.ts';

/**
 * croner (and, through it, the time zone data of Intl, ~7 MiB of the Node binary made resident) is
 * loaded on the first slot computed in a zone other than UTC, not at the service's start
 * (docs/decisions/performance.md).
 */
const croner = onFirstUse(() => createRequire(import.meta.url)('croner') as typeof Croner);

const DAY_MS = 86_400_000;

/**
 * Slots already computed (a status read asks for the same ones again and again; croner walks the
 * calendar with Intl in about a millisecond). Deterministic, so a cache of inputs → output.
 */
const memo = new Map<string, number>();
const MEMO_MAX = 256;

/** A daily slot at `HH:MM` in `timeZone`: the first one strictly after `after`. */
export function nextDailySlot(time: string, timeZone: string, after: Date): Date {
  const key = `${time}|${timeZone}|${after.getTime()}`;
  const hit = memo.get(key);
  if (hit !== undefined) return new Date(hit);
  const slot = computeSlot(time, timeZone, after);
  if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value as string);
  memo.set(key, slot.getTime());
  return slot;
}

function computeSlot(time: string, timeZone: string, after: Date): Date {
  const [h, m] = time.split(':').map(Number);
  if (timeZone === 'UTC') return utcSlot(h!, m!, after);
  const cron = new (croner().Cron)(`${m} ${h} * * *`, { timezone: timeZone, paused: true });
  const next = cron.nextRun(after);
  cron.stop();
  if (!next) throw new Error(`no slot for ${time} in ${timeZone}`);
  return next;
}

/** The first `HH:MM:00.000` UTC strictly after `after` (what croner answers for UTC, without it). */
export function utcSlot(h: number, m: number, after: Date): Date {
  const day = Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate());
  const today = day + (h * 60 + m) * 60_000;
  return new Date(today > after.getTime() ? today : today + DAY_MS);
}

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
