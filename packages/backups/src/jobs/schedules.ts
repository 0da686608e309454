/**
 * The backup schedules on a `Scheduler` of `@appliance/jobs` (09): one schedule runs every plan
 * that is due (each plan's own last scheduled run is in its state), one runs the drills that are
 * due, and one checks staleness every quarter of an hour. A plan whose destination is busy (another
 * job of that disk: `job_running`) stays due and starts at a later tick.
 *
 * Staleness is a shared condition (key `backup:stale:<plan>`: raised once when it starts, not
 * raised again after a restart), the one record of it: the check after the next successful run, or
 * after deleting the plan, ends it.
 */
import { isRefusal, isoMillis } from '@appliance/common';
import type { JobKind, Schedule } from '@appliance/jobs';
import * as backupEvents from '../core/messages.ts';
import type { BackupPlan } from '../core/plan.ts';
import { nextBackupDue, nextDrillDue, periodMs } from '../core/schedule.ts';
import { isStale, staleTransitions } from '../core/staleness.ts';
import type { BackupLogger } from '../ports.ts';
import { backupDrillJob, backupRunJob, type RunParams } from './kinds.ts';

export const STALENESS_CHECK_MS = 15 * 60_000;

/** A plan's state as the schedules read it (ISO times or null). */
export interface PlanScheduleState {
  since: string | null;
  lastScheduledAt: string | null;
  lastDrillAt: string | null;
  lastDrillScheduledAt: string | null;
  firstSuccessAt: string | null;
  lastSuccessAt: string | null;
}

export interface ScheduleDeps {
  plans: {
    list(): BackupPlan[];
    state(plan: string): PlanScheduleState | null;
    /** Every plan with its state (created the first time a plan is seen: after an import). */
    withState(): Promise<{ plan: BackupPlan; state: PlanScheduleState }[]>;
    markScheduled(plan: string, field: 'lastScheduledAt' | 'lastDrillScheduledAt', at: string): Promise<void>;
  };
  timeZone(): string;
  clock: { now(): Date };
  /** Starts a job of a plan (the job runner's `start`). */
  start(
    kind: JobKind<RunParams, unknown>,
    params: RunParams,
    options: { target: string; actor: null; trigger: 'schedule' },
  ): Promise<{ view: { id: string } }>;
  scheduler: { register(schedule: Schedule): void };
  /** The shared conditions (raised once, shown while they hold). */
  conditions: {
    holding(prefixes: readonly string[]): readonly { key: string }[];
    hold(key: string, event: backupEvents.RaisedEvent, source: string): Promise<unknown>;
    clear(key: string): Promise<unknown>;
  };
  logger: BackupLogger;
}

const date = (iso: string | null | undefined) => (iso ? new Date(iso) : null);
const later = (a: Date | null, b: Date | null) => (a && b ? (a > b ? a : b) : (a ?? b));
const earliest = (dates: (Date | null)[]) =>
  dates.reduce<Date | null>((min, d) => (d && (!min || d < min) ? d : min), null);

export function planDue(
  deps: Pick<ScheduleDeps, 'timeZone'>,
  plan: BackupPlan,
  state: PlanScheduleState | null,
) {
  return nextBackupDue({
    plan,
    timeZone: deps.timeZone(),
    lastScheduledAt: date(state?.lastScheduledAt),
    since: date(state?.since) ?? new Date(plan.createdAt),
  });
}

export function drillDue(
  deps: Pick<ScheduleDeps, 'timeZone'>,
  plan: BackupPlan,
  state: PlanScheduleState | null,
) {
  return nextDrillDue({
    plan,
    timeZone: deps.timeZone(),
    lastDrillAt: later(date(state?.lastDrillAt), date(state?.lastDrillScheduledAt)),
    firstSuccessAt: date(state?.firstSuccessAt),
  });
}

export function planStale(
  deps: Pick<ScheduleDeps, 'clock'>,
  plan: BackupPlan,
  state: PlanScheduleState | null,
) {
  return isStale({
    plan,
    lastSuccessAt: date(state?.lastSuccessAt),
    since: date(state?.since) ?? new Date(plan.createdAt),
    now: deps.clock.now(),
  });
}

/** Registers `backup.runs`, `backup.drills` and `backup.staleness` on the scheduler. */
export function registerBackupSchedules(deps: ScheduleDeps): void {
  const start = async (
    kind: JobKind<RunParams, unknown>,
    plan: BackupPlan,
    field: 'lastScheduledAt' | 'lastDrillScheduledAt',
  ) => {
    try {
      const { view: job } = await deps.start(
        kind,
        { plan: plan.name, destination: plan.destination },
        { target: plan.name, actor: null, trigger: 'schedule' },
      );
      await deps.plans.markScheduled(plan.name, field, isoMillis(deps.clock.now()));
      return job.id;
    } catch (err) {
      // busy: still due, tried at a later tick
      if (isRefusal(err) && (err.code === 'job_running' || err.code === 'import_in_progress')) return null;
      throw err;
    }
  };
  const dueOf = (due: typeof planDue) => () =>
    earliest(deps.plans.list().map((p) => due(deps, p, deps.plans.state(p.name))));
  const runDue =
    (
      due: typeof planDue,
      kind: JobKind<RunParams, unknown>,
      field: 'lastScheduledAt' | 'lastDrillScheduledAt',
    ) =>
    async () => {
      const now = deps.clock.now();
      let first: string | null = null;
      for (const { plan, state } of await deps.plans.withState()) {
        const at = due(deps, plan, state);
        if (!at || at > now) continue;
        first ??= await start(kind, plan, field);
      }
      return first;
    };

  deps.scheduler.register({
    name: 'backup.runs',
    nextDue: dueOf(planDue),
    run: runDue(planDue, backupRunJob, 'lastScheduledAt'),
  });
  deps.scheduler.register({
    name: 'backup.drills',
    nextDue: dueOf(drillDue),
    run: runDue(drillDue, backupDrillJob, 'lastDrillScheduledAt'),
  });
  deps.scheduler.register({
    name: 'backup.staleness',
    // nothing to check (and nothing written) while there is no plan
    nextDue: (lastRunAt) =>
      deps.plans.list().length === 0
        ? null
        : lastRunAt
          ? new Date(lastRunAt.getTime() + STALENESS_CHECK_MS)
          : new Date(0),
    run: async () => {
      await checkStaleness(deps);
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
export async function checkStaleness(
  deps: Pick<ScheduleDeps, 'plans' | 'conditions' | 'clock' | 'logger'>,
): Promise<string[]> {
  const entries = await deps.plans.withState();
  const held = new Set(deps.conditions.holding([STALE_PREFIX]).map((h) => h.key));
  const facts = entries.map(({ plan, state }) => ({
    plan: plan.name,
    stale: planStale(deps, plan, state),
    raised: held.has(staleKey(plan.name)),
  }));
  const { onsets, clears } = staleTransitions(facts);
  const known = new Set(entries.map((e) => staleKey(e.plan.name)));
  const ended = [...clears.map(staleKey), ...[...held].filter((k) => !known.has(k))];
  try {
    for (const name of onsets) {
      const { plan, state } = entries.find((e) => e.plan.name === name)!;
      await deps.conditions.hold(
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
    for (const key of ended) await deps.conditions.clear(key);
  } catch (err) {
    deps.logger.error('backup_destination_stale not recorded', { error: String(err) });
  }
  return onsets;
}
