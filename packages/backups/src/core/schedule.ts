/**
 * When a plan runs and when its restore drill runs, in the appliance's time zone (09 "Schedules").
 * Counting from the last scheduled slot (not from now) makes a week of slots missed while the
 * service was down run once, not seven times.
 */
import { nextDailySlot, nextWeeklySlot } from '@appliance/common';
import type { BackupPlan, BackupSchedule } from './plan.ts';

export const DAY_MS = 86_400_000;

/** The length of a plan's period: a day or a week. */
export const periodMs = (s: BackupSchedule): number => (s.kind === 'daily' ? DAY_MS : 7 * DAY_MS);

/** The first slot of `schedule` strictly after `after`. */
export function nextSlot(schedule: BackupSchedule, timeZone: string, after: Date): Date {
  return schedule.kind === 'daily'
    ? nextDailySlot(schedule.time, timeZone, after)
    : nextWeeklySlot(schedule.weekday, schedule.time, timeZone, after);
}

/**
 * The next scheduled run: the first slot after the last scheduled one (or after `since`, when the
 * plan became known here); null when the plan is off.
 */
export function nextBackupDue(input: {
  plan: Pick<BackupPlan, 'enabled' | 'schedule'>;
  timeZone: string;
  lastScheduledAt: Date | null;
  since: Date;
}): Date | null {
  if (!input.plan.enabled) return null;
  return nextSlot(input.plan.schedule, input.timeZone, input.lastScheduledAt ?? input.since);
}

/**
 * The next drill: the first `drill.time` slot at least `everyDays` after the last drill (half a day
 * of slack, so a drill that started a little after its slot does not push the next one a day), the
 * first one `everyDays` after the first successful backup. Null when drills are off, the plan is
 * off, or nothing was backed up yet.
 */
export function nextDrillDue(input: {
  plan: Pick<BackupPlan, 'enabled' | 'drill'>;
  timeZone: string;
  lastDrillAt: Date | null;
  firstSuccessAt: Date | null;
}): Date | null {
  const { plan } = input;
  if (!plan.enabled || !plan.drill.enabled || input.firstSuccessAt === null) return null;
  const base = input.lastDrillAt ?? input.firstSuccessAt;
  const earliest = new Date(base.getTime() + plan.drill.everyDays * DAY_MS - DAY_MS / 2);
  return nextDailySlot(plan.drill.time, input.timeZone, earliest);
}
