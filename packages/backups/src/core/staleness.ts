/**
 * `backup_destination_stale` (issue 23): a plan whose destination has had no successful backup
 * within twice the plan's period (two days for a daily plan, two weeks for a weekly one). A
 * condition: raised once when it starts, cleared by the next successful run, never raised again
 * while it lasts (a restart included: the caller stores what was raised).
 */
import type { BackupPlan } from './plan.ts';
import { periodMs } from './schedule.ts';

export function isStale(input: {
  plan: Pick<BackupPlan, 'enabled' | 'schedule'>;
  /** The end of the last run whose every part succeeded, or null. */
  lastSuccessAt: Date | null;
  /** When the plan became known here (created, or restored by a config import). */
  since: Date;
  now: Date;
}): boolean {
  if (!input.plan.enabled) return false;
  const ref = input.lastSuccessAt ?? input.since;
  return input.now.getTime() - ref.getTime() > 2 * periodMs(input.plan.schedule);
}

export interface StaleFact {
  plan: string;
  stale: boolean;
  /** Raised already (stored). */
  raised: boolean;
}

/** Onsets to raise and conditions that ended, from this check's facts and what was raised before. */
export function staleTransitions(facts: readonly StaleFact[]): { onsets: string[]; clears: string[] } {
  return {
    onsets: facts.filter((f) => f.stale && !f.raised).map((f) => f.plan),
    clears: facts.filter((f) => !f.stale && f.raised).map((f) => f.plan),
  };
}
