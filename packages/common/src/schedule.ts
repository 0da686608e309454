/**
 * Calendar slots in the appliance's time zone (09 "Schedules"), shared by every schedule of the
 * service (parity sync and scrub, backups, drills). croner walks the calendar with Intl, so a
 * daylight-saving change moves the slot with the wall clock. Plain functions: the caller passes the
 * instant to count from; nothing here reads the clock.
 */
import { Cron } from 'croner';

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
  const cron = new Cron(pattern, { timezone: timeZone, paused: true });
  const next = cron.nextRun(after);
  cron.stop();
  if (!next) throw new Error(`no slot for "${pattern}" in ${timeZone}`);
  if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value as string);
  memo.set(key, next.getTime());
  return next;
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
