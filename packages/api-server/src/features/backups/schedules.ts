/**
 * The backup schedules on the service's scheduler (09): one schedule runs every plan that is due
 * (each plan's own last scheduled run is in its state row), one runs the drills that are due, and
 * one checks staleness every quarter of an hour. A plan whose destination is busy (another job of
 * that disk: `409 job_running`) stays due and starts at a later tick.
 *
 * Staleness is a shared condition (`ctx.conditions`, key `backup:stale:<plan>`: raised once when
 * it starts, shown by `GET /health`, not raised again after a restart), the one record of it: the
 * check after the next successful run, or after deleting the plan, ends it.
 */
import {
  backupDrillJob,
  backupEvents,
  backupRunJob,
  isStale,
  nextBackupDue,
  nextDrillDue,
  periodMs,
  type RunParams,
  staleTransitions,
} from '@appliance/backups';
import { isAppError, isoMillis } from '@appliance/common';
import type { JobKind } from '@appliance/jobs';
import type { AppContext } from '../../context.ts';
import { readSettings } from '../settings/index.ts';
import { ensureState, type PlanState, readPlans, readState, type StoredPlan, updateState } from './store.ts';

export const STALENESS_CHECK_MS = 15 * 60_000;

const date = (iso: string | null | undefined) => (iso ? new Date(iso) : null);
const later = (a: Date | null, b: Date | null) => (a && b ? (a > b ? a : b) : (a ?? b));

export function planDue(ctx: AppContext, plan: StoredPlan, state: PlanState | null): Date | null {
  return nextBackupDue({
    plan,
    timeZone: readSettings(ctx.db).timezone,
    lastScheduledAt: date(state?.lastScheduledAt),
    since: date(state?.since) ?? new Date(plan.createdAt),
  });
}

export function drillDue(ctx: AppContext, plan: StoredPlan, state: PlanState | null): Date | null {
  return nextDrillDue({
    plan,
    timeZone: readSettings(ctx.db).timezone,
    lastDrillAt: later(date(state?.lastDrillAt), date(state?.lastDrillScheduledAt)),
    firstSuccessAt: date(state?.firstSuccessAt),
  });
}

export function planStale(ctx: AppContext, plan: StoredPlan, state: PlanState | null): boolean {
  return isStale({
    plan,
    lastSuccessAt: date(state?.lastSuccessAt),
    since: date(state?.since) ?? new Date(plan.createdAt),
    now: ctx.clock.now(),
  });
}

/** Every plan with its state row (created the first time a plan is seen: after an import). */
async function plansWithState(ctx: AppContext): Promise<{ plan: StoredPlan; state: PlanState }[]> {
  const plans = readPlans(ctx.db);
  const at = isoMillis(ctx.clock.now());
  return ctx.writes.run((db) => plans.map((plan) => ({ plan, state: ensureState(db, plan.name, at) })));
}

const earliest = (dates: (Date | null)[]) =>
  dates.reduce<Date | null>((min, d) => (d && (!min || d < min) ? d : min), null);

export function registerSchedules(ctx: AppContext): void {
  const start = async (
    kind: JobKind<RunParams, unknown>,
    plan: StoredPlan,
    field: 'lastScheduledAt' | 'lastDrillScheduledAt',
  ) => {
    try {
      const { view: job } = await ctx.jobs.start(
        kind,
        { plan: plan.name, destination: plan.destination },
        { target: plan.name, actor: null, trigger: 'schedule' },
      );
      const at = isoMillis(ctx.clock.now());
      await ctx.writes.run((db) => updateState(db, plan.name, at, { [field]: at }));
      return job.id;
    } catch (err) {
      // busy: still due, tried at a later tick
      if (isAppError(err) && (err.code === 'job_running' || err.code === 'import_in_progress')) return null;
      throw err;
    }
  };

  ctx.scheduler.register({
    name: 'backup.runs',
    nextDue: () => earliest(readPlans(ctx.db).map((p) => planDue(ctx, p, readState(ctx.db, p.name)))),
    run: async () => {
      const now = ctx.clock.now();
      let first: string | null = null;
      for (const { plan, state } of await plansWithState(ctx)) {
        const due = planDue(ctx, plan, state);
        if (!due || due > now) continue;
        first ??= await start(backupRunJob, plan, 'lastScheduledAt');
      }
      return first;
    },
  });

  ctx.scheduler.register({
    name: 'backup.drills',
    nextDue: () => earliest(readPlans(ctx.db).map((p) => drillDue(ctx, p, readState(ctx.db, p.name)))),
    run: async () => {
      const now = ctx.clock.now();
      let first: string | null = null;
      for (const { plan, state } of await plansWithState(ctx)) {
        const due = drillDue(ctx, plan, state);
        if (!due || due > now) continue;
        first ??= await start(backupDrillJob, plan, 'lastDrillScheduledAt');
      }
      return first;
    },
  });

  ctx.scheduler.register({
    name: 'backup.staleness',
    // nothing to check (and nothing written) while there is no plan
    nextDue: (lastRunAt) =>
      readPlans(ctx.db).length === 0
        ? null
        : lastRunAt
          ? new Date(lastRunAt.getTime() + STALENESS_CHECK_MS)
          : new Date(0),
    run: async () => {
      await checkStaleness(ctx);
      return null;
    },
  });
}

const STALE_PREFIX = 'backup:stale:';
const staleKey = (plan: string) => `${STALE_PREFIX}${plan}`;

/**
 * Raises `backup_destination_stale` for each plan that became stale since the last check, and ends
 * the condition of a plan that is no longer stale (a run succeeded) or no longer exists. Runs every
 * quarter of an hour, after every run and after a plan's deletion.
 */
export async function checkStaleness(ctx: AppContext): Promise<string[]> {
  const entries = await plansWithState(ctx);
  const held = new Set(ctx.conditions.holding([STALE_PREFIX]).map((h) => h.key));
  const facts = entries.map(({ plan, state }) => ({
    plan: plan.name,
    stale: planStale(ctx, plan, state),
    raised: held.has(staleKey(plan.name)),
  }));
  const { onsets, clears } = staleTransitions(facts);
  const known = new Set(entries.map((e) => staleKey(e.plan.name)));
  const ended = [...clears.map(staleKey), ...[...held].filter((k) => !known.has(k))];
  try {
    for (const name of onsets) {
      const { plan, state } = entries.find((e) => e.plan.name === name)!;
      await ctx.conditions.hold(
        staleKey(plan.name),
        backupEvents.destinationStale({
          plan: plan.name,
          destination: plan.destination,
          lastSuccessAt: state.lastSuccessAt,
          periodDays: periodMs(plan.schedule) / 86_400_000,
        }),
        'backups',
      );
    }
    for (const key of ended) await ctx.conditions.clear(key);
  } catch (err) {
    ctx.logger.error('backup_destination_stale not recorded', { error: String(err) });
  }
  return onsets;
}
