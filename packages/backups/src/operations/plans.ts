/**
 * The administration of backup plans over `PlanAdminPorts`: the plan as the API shows it (status,
 * next run, drill, staleness, repository path), the checks against the installation's facts, and
 * create, update and delete with their audit rows, then starting a run or a drill on request.
 */
import { isoMillis, refuse } from '@appliance/common';
import { externalMountpoint } from '@appliance/external-disk';
import type { JobKind } from '@appliance/jobs';
import { checkPlan, configCopyPath, type PlanFacts, type PlanSpec, repositoryPath } from '../core/plan.ts';
import { passwordMissing, planNotFound } from '../jobs/common.ts';
import { backupDrillJob, backupRestoreJob, backupRunJob, type RunParams } from '../jobs/kinds.ts';
import { checkStaleness, drillDue, planDue, planStale } from '../jobs/schedules.ts';
import type { PlanAdminPorts, PlanFactSources, PlanRecords, StoredPlan } from '../ports.ts';

/** The plan, or the refusal naming it (`backup_plan_not_found`). */
export function requirePlan(plans: Pick<PlanRecords, 'read'>, name: string): StoredPlan {
  const plan = plans.read(name);
  if (!plan) throw planNotFound(name);
  return plan;
}

/** A plan as the API shows it: never its password, only whether it is known here. */
export function planView(ports: Pick<PlanAdminPorts, 'plans' | 'schedules'>, plan: StoredPlan) {
  const state = ports.plans.state(plan.name);
  const { sealedPassword, ...rest } = plan;
  const next = planDue(ports.schedules, plan, state);
  const nextDrill = drillDue(ports.schedules, plan, state);
  return {
    ...rest,
    repository: repositoryPath(externalMountpoint(plan.destination), plan.name),
    latestConfigArchive: plan.configuration
      ? configCopyPath(externalMountpoint(plan.destination), plan.name)
      : null,
    hasPassword: sealedPassword !== null,
    status: {
      lastRun: state?.lastRunJobId
        ? { jobId: state.lastRunJobId, state: state.lastRunState ?? 'unknown', at: state.lastRunAt }
        : null,
      lastSuccessAt: state?.lastSuccessAt ?? null,
      nextRunAt: next ? isoMillis(next) : null,
      lastDrill: state?.lastDrillJobId
        ? { jobId: state.lastDrillJobId, state: state.lastDrillState ?? 'unknown', at: state.lastDrillAt }
        : null,
      nextDrillAt: nextDrill ? isoMillis(nextDrill) : null,
      stale: planStale(ports.schedules, plan, state),
    },
  };
}

export type PlanView = ReturnType<typeof planView>;

/** Every plan, by name. */
export const listPlanViews = (ports: Pick<PlanAdminPorts, 'plans' | 'schedules'>): PlanView[] =>
  ports.plans.list().map((p) => planView(ports, p));

/** One plan's view, or the refusal naming it (`backup_plan_not_found`). */
export const planViewOf = (ports: Pick<PlanAdminPorts, 'plans' | 'schedules'>, name: string): PlanView =>
  planView(ports, requirePlan(ports.plans, name));

/** What a plan may name here: installed stacks (not pending), shares, destinations, passphrase. */
export async function planFacts(sources: PlanFactSources): Promise<PlanFacts> {
  const destinations = await sources.destinations();
  return {
    stacks: sources
      .stacks()
      .filter((s) => !s.pending)
      .map((s) => s.name),
    shares: sources.shares(),
    destinations: destinations.map((d) => ({ label: d.label, backupDestination: d.backupDestination })),
    passphraseSet: sources.passphraseSet(),
  };
}

/** checkPlan with the installation's facts (stacks, shares, destinations, passphrase). */
export async function refusePlan(ports: Pick<PlanAdminPorts, 'facts'>, spec: PlanSpec): Promise<void> {
  const err = checkPlan(spec, await planFacts(ports.facts));
  if (err) throw err;
}

/** The names of the settings an update changed (its audit details). */
export const changedFields = (before: PlanSpec, after: PlanSpec): (keyof PlanSpec)[] =>
  (Object.keys(after) as (keyof PlanSpec)[]).filter(
    (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
  );

/** Creates a plan; its repository password is generated here and stored sealed. */
export async function createPlan(ports: PlanAdminPorts, name: string, spec: PlanSpec): Promise<PlanView> {
  await refusePlan(ports, spec);
  const at = isoMillis(ports.clock.now());
  // 32 random bytes: restic's key derivation protects the repository with it
  const sealed = ports.seal(ports.randomBytes(32).toString('base64url'));
  await ports.write((tx) => {
    if (tx.read(name))
      throw refuse(
        'backup_plan_exists',
        `A backup plan named "${name}" exists already: choose another name, or change it with PUT.`,
        { plan: name },
      );
    tx.insert(name, spec, sealed, at);
    tx.audit({ operation: 'backups.plan.create', target: name, details: { ...spec } });
  });
  return planViewOf(ports, name);
}

/** Replaces a plan's settings (its password and snapshots stay); audits the fields that changed. */
export async function updatePlan(ports: PlanAdminPorts, name: string, spec: PlanSpec): Promise<PlanView> {
  const before = requirePlan(ports.plans, name);
  await refusePlan(ports, spec);
  await ports.write((tx) => {
    if (!tx.read(name)) throw planNotFound(name);
    tx.update(name, spec, isoMillis(ports.clock.now()));
    tx.audit({
      operation: 'backups.plan.update',
      target: name,
      details: { changed: changedFields(before, spec) },
    });
  });
  return planViewOf(ports, name);
}

/** A running job (run, drill, restore) of this plan. */
export function runningJobOf(jobs: PlanAdminPorts['jobs'], plan: string) {
  return [
    ...jobs.runningOf(backupRunJob),
    ...jobs.runningOf(backupDrillJob),
    ...jobs.runningOf(backupRestoreJob),
  ].find((j) => j.params.plan === plan);
}

/**
 * Deletes a plan (typed confirmation `DELETE <name>`; never while a job of it runs). Its snapshots
 * stay on the disk; the staleness check then ends the plan's condition.
 */
export async function deletePlan(
  ports: PlanAdminPorts,
  name: string,
  confirmation: string | null | undefined,
): Promise<void> {
  requirePlan(ports.plans, name);
  const expected = `DELETE ${name}`;
  if (confirmation !== expected)
    throw refuse(
      'confirmation_required',
      `Deleting plan ${name} forgets its repository password: its snapshots stay on the disk but this box can no longer read them (export the configuration first to keep it). Type exactly: ${expected}`,
      { expected },
    );
  const running = runningJobOf(ports.jobs, name);
  if (running)
    throw refuse(
      'job_running',
      `A ${running.type} of plan ${name} is running (job ${running.id}): wait for it, then delete the plan.`,
      { jobId: running.id, type: running.type, target: running.target },
    );
  await ports.write((tx) => {
    tx.delete(name);
    tx.audit({ operation: 'backups.plan.delete', target: name });
  });
  await checkStaleness(ports.schedules);
}

/** Starts a run or a drill of a plan on request: a missing disk or password is refused at once. */
export async function startPlanJob(
  ports: Pick<PlanAdminPorts, 'plans' | 'jobs' | 'checkDestination'>,
  name: string,
  kind: JobKind<RunParams, unknown>,
) {
  const plan = requirePlan(ports.plans, name);
  if (plan.sealedPassword === null) throw passwordMissing(plan.name);
  await ports.checkDestination(plan.destination);
  // a drill reads the repository's snapshots, whatever box made them (after a configuration
  // restore this box has run nothing yet): the job says when there is none
  const started = await ports.jobs.start(
    kind,
    { plan: plan.name, destination: plan.destination },
    { target: plan.name, auditOperation: kind === backupRunJob ? 'backups.run' : 'backups.drill' },
  );
  return started.view;
}
