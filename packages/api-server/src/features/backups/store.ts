/** The database side of backups: plans (configuration), their runtime state, snapshot sizes. */
import type { BackupSchedule, PlanSpec, StackChoice, StoredPlan, Weekday } from '@appliance/backups';
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { backupPlanState, backupPlans, backupSnapshots, settings } from '../../db/schema.ts';

type PlanRow = typeof backupPlans.$inferSelect;
export type PlanState = typeof backupPlanState.$inferSelect;

function toPlan(r: PlanRow): StoredPlan {
  const schedule: BackupSchedule =
    r.scheduleKind === 'weekly'
      ? { kind: 'weekly', weekday: r.scheduleWeekday as Weekday, time: r.scheduleTime }
      : { kind: 'daily', time: r.scheduleTime };
  return {
    name: r.name,
    enabled: r.enabled === 1,
    destination: r.destination,
    configuration: r.configuration === 1,
    stacks: JSON.parse(r.stacks) as StackChoice[],
    shares: JSON.parse(r.shares) as string[],
    schedule,
    retention: { daily: r.keepDaily, weekly: r.keepWeekly, monthly: r.keepMonthly },
    drill: { enabled: r.drillEnabled === 1, everyDays: r.drillEveryDays, time: r.drillTime },
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    sealedPassword: r.repoPassword,
  };
}

const specColumns = (s: PlanSpec) => ({
  enabled: s.enabled ? 1 : 0,
  destination: s.destination,
  configuration: s.configuration ? 1 : 0,
  stacks: JSON.stringify(s.stacks.map((x) => ({ name: x.name, keepRunning: x.keepRunning }))),
  shares: JSON.stringify(s.shares),
  scheduleKind: s.schedule.kind,
  scheduleWeekday: s.schedule.kind === 'weekly' ? s.schedule.weekday : null,
  scheduleTime: s.schedule.time,
  keepDaily: s.retention.daily,
  keepWeekly: s.retention.weekly,
  keepMonthly: s.retention.monthly,
  drillEnabled: s.drill.enabled ? 1 : 0,
  drillEveryDays: s.drill.everyDays,
  drillTime: s.drill.time,
});

export const readPlans = (db: Db): StoredPlan[] =>
  db.select().from(backupPlans).orderBy(backupPlans.name).all().map(toPlan);

export function readPlan(db: Db, name: string): StoredPlan | null {
  const r = db.select().from(backupPlans).where(eq(backupPlans.name, name)).get();
  return r ? toPlan(r) : null;
}

export function insertPlan(db: Db, name: string, spec: PlanSpec, sealedPassword: Buffer, at: string): void {
  db.insert(backupPlans)
    .values({ name, ...specColumns(spec), repoPassword: sealedPassword, createdAt: at, updatedAt: at })
    .run();
  db.insert(backupPlanState)
    .values({ plan: name, since: at })
    .onConflictDoUpdate({ target: backupPlanState.plan, set: { since: at } })
    .run();
}

export function updatePlan(db: Db, name: string, spec: PlanSpec, at: string): void {
  db.update(backupPlans)
    .set({ ...specColumns(spec), updatedAt: at })
    .where(eq(backupPlans.name, name))
    .run();
}

export function deletePlan(db: Db, name: string): void {
  db.delete(backupPlans).where(eq(backupPlans.name, name)).run();
  db.delete(backupPlanState).where(eq(backupPlanState.plan, name)).run();
  db.delete(backupSnapshots).where(eq(backupSnapshots.plan, name)).run();
}

export const readState = (db: Db, plan: string): PlanState | null =>
  db.select().from(backupPlanState).where(eq(backupPlanState.plan, plan)).get() ?? null;

/** The state row of a plan, created (since = at) the first time the plan is seen here. */
export function ensureState(db: Db, plan: string, at: string): PlanState {
  db.insert(backupPlanState).values({ plan, since: at }).onConflictDoNothing().run();
  return readState(db, plan)!;
}

export function updateState(db: Db, plan: string, at: string, patch: Partial<Omit<PlanState, 'plan'>>): void {
  ensureState(db, plan, at);
  db.update(backupPlanState).set(patch).where(eq(backupPlanState.plan, plan)).run();
}

export interface SnapshotSize {
  sizeBytes: number | null;
  dataAddedBytes: number | null;
  files: number | null;
}

/** Sizes recorded for a plan's snapshots, by short id. */
export function snapshotSizes(db: Db, plan: string): Map<string, SnapshotSize> {
  return new Map(
    db
      .select()
      .from(backupSnapshots)
      .where(eq(backupSnapshots.plan, plan))
      .all()
      .map((r) => [r.id, { sizeBytes: r.sizeBytes, dataAddedBytes: r.dataAddedBytes, files: r.files }]),
  );
}

export function recordSnapshot(
  db: Db,
  row: { id: string; plan: string; part: string; time: string } & SnapshotSize,
): void {
  db.insert(backupSnapshots)
    .values(row)
    .onConflictDoUpdate({
      target: backupSnapshots.id,
      set: {
        sizeBytes: row.sizeBytes,
        files: row.files,
        ...(row.dataAddedBytes !== null ? { dataAddedBytes: row.dataAddedBytes } : {}),
      },
    })
    .run();
}

export function forgetSnapshots(db: Db, ids: readonly string[]): void {
  if (ids.length > 0)
    db.delete(backupSnapshots)
      .where(inArray(backupSnapshots.id, [...ids]))
      .run();
}

/** A backup passphrase is stored in the settings. */
export const passphraseSet = (db: Db): boolean =>
  (db.select({ p: settings.backupPassphrase }).from(settings).get()?.p ?? null) !== null;
