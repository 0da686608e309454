/**
 * Calendar slots in the appliance's time zone (09 "Schedules"), shared by every schedule of the
 * service (parity sync and scrub, backups, drills). croner walks the calendar with Intl, so a
 * daylight-saving change moves the slot with the wall clock. Plain functions: the caller passes the
 * instant to count from; nothing here reads the clock.
 */
import { createRequire } from 'node:module';
import type * as Croner from 'croner';
import { onFirstUse } from './first-use.ts';

/**
 * croner (and through it Intl's time zone data, ~7 MiB of the Node binary made resident) loads on
 * the first slot computed in a zone other than UTC, not at the service's start
 * (docs/decisions/performance.md).
 */
const croner = onFirstUse(() => createRequire(import.meta.url)('croner') as typeof Croner);

const DAY_MS = 86_400_000;

/** `HH:MM`, 24-hour. */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Days of the week as the API names them; index = cron's day of week (0 = Sunday). */
export const WEEKDAYS = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * Slots already computed (a status read asks for the same ones again and again; croner walks the
 * calendar with Intl in about a millisecond). Deterministic, so a cache of inputs → output.
 */
const memo = new Map<string, number>();
const MEMO_MAX = 512;

function slot(pattern: string, timeZone: string, after: Date): Date {
  const key = `${pattern}|${timeZone}|${after.getTime()}`;
  const hit = memo.get(key);
  if (hit !== undefined) return new Date(hit);
  const next = timeZone === 'UTC' ? utcSlot(pattern, after) : cronSlot(pattern, timeZone, after);
  if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value as string);
  memo.set(key, next.getTime());
  return next;
}

function cronSlot(pattern: string, timeZone: string, after: Date): Date {
  const cron = new (croner().Cron)(pattern, { timezone: timeZone, paused: true });
  const next = cron.nextRun(after);
  cron.stop();
  if (!next) throw new Error(`no slot for "${pattern}" in ${timeZone}`);
  return next;
}

/**
 * What croner answers for `M H * * [D]` in UTC, without it: the first `HH:MM:00.000` UTC strictly
 * after `after` (on weekday D when given).
 */
export function utcSlot(pattern: string, after: Date): Date {
  const [m, h, , , d] = pattern.split(' ');
  const day = Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate());
  let t = day + (Number(h) * 60 + Number(m)) * 60_000;
  if (t <= after.getTime()) t += DAY_MS;
  if (d !== '*') while (new Date(t).getUTCDay() !== Number(d)) t += DAY_MS;
  return new Date(t);
}

function hourMinute(time: string): [number, number] {
  if (!TIME_OF_DAY.test(time)) throw new Error(`not a time of day (HH:MM): ${time}`);
  const [h, m] = time.split(':').map(Number);
  return [h as number, m as number];
}

/** A daily slot at `HH:MM` in `timeZone`: the first one strictly after `after`. */
export function nextDailySlot(time: string, timeZone: string, after: Date): Date {
  const [h, m] = hourMinute(time);
  return slot(`${m} ${h} * * *`, timeZone, after);
}

/** A weekly slot on `weekday` at `HH:MM` in `timeZone`: the first one strictly after `after`. */
export function nextWeeklySlot(weekday: Weekday, time: string, timeZone: string, after: Date): Date {
  const [h, m] = hourMinute(time);
  const day = WEEKDAYS.indexOf(weekday);
  if (day < 0) throw new Error(`not a weekday: ${weekday}`);
  return slot(`${m} ${h} * * ${day}`, timeZone, after);
}

/** IANA zone names, read from ICU on the first check (not at start: ~0.4 MiB of the idle service). */
const timezones = onFirstUse(() => new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']));

/** Whether `name` is a time zone the slots can be computed in: an IANA zone name, or UTC. */
export const isTimeZone = (name: string): boolean => timezones().has(name);
