/**
 * The stack operations as jobs on the job runner (issue 35): `stack.start|stop|restart|remove`,
 * one at a time per stack (group `stack:<name>`), refused while a backup of the stack runs. The
 * operations load on the first run (stack-work.ts).
 */
import { AppError } from '@appliance/common';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { backupPlans } from '../../db/schema.ts';
import { defineJob, type JobKind } from '@appliance/jobs';
import { backupRestoreJob, backupRunJob } from '@appliance/backups';

export interface StackJobParams {
  stack: string;
  removeData?: boolean;
  confirm?: string;
  healthTimeoutSeconds?: number;
  /** The backup plan to run first (an update asked for a snapshot). */
  snapshotPlan?: string;
}

/** What a stack job records (the operation's own report). */
export type StackJobResult = unknown;

const stackJob = (type: string, title: string): JobKind<StackJobParams, StackJobResult> =>
  defineJob<StackJobParams, StackJobResult>({ type, title, groups: (p) => [`stack:${p.stack}`] });

/** One job kind per stack operation, one at a time per stack (group `stack:<name>`). */
export const STACK_JOBS = {
  start: stackJob('stack.start', 'stack start'),
  stop: stackJob('stack.stop', 'stack stop'),
  restart: stackJob('stack.restart', 'stack restart'),
  remove: stackJob('stack.remove', 'stack removal'),
  update: stackJob('stack.update', 'stack update'),
} as const;
export type StackJobKind = keyof typeof STACK_JOBS;

const work = () => import('./stack-work.ts');

/** A running backup (or restore) whose plan holds the stack → 409 stack_backup_running. */
export function assertNoBackupOf(ctx: AppContext, name: string): void {
  const restoring = ctx.jobs
    .runningOf(backupRestoreJob)
    .filter((j) => j.params.part.kind === 'stack' && j.params.part.name === name);
  const backingUp = ctx.jobs.runningOf(backupRunJob).filter((j) => planHoldsStack(ctx, j.params.plan, name));
  const job = restoring[0] ?? backingUp[0];
  if (job)
    throw new AppError(
      409,
      'stack_backup_running',
      `A backup of the stack ${name} is running (job ${job.id}); wait for it to finish and try again.`,
      { stack: name, job: job.id },
    );
}

function planHoldsStack(ctx: AppContext, plan: string, name: string): boolean {
  const row = ctx.db
    .select({ stacks: backupPlans.stacks })
    .from(backupPlans)
    .where(eq(backupPlans.name, plan))
    .get();
  try {
    return ((row ? JSON.parse(row.stacks) : []) as { name: string }[]).some((s) => s.name === name);
  } catch {
    return false;
  }
}

/** The enabled-or-not backup plan that holds the stack, if any (its app data is backed up). */
export function planCovering(ctx: AppContext, name: string): { name: string; destination: string } | null {
  for (const row of ctx.db
    .select({ name: backupPlans.name, destination: backupPlans.destination, stacks: backupPlans.stacks })
    .from(backupPlans)
    .all()) {
    try {
      if ((JSON.parse(row.stacks) as { name: string }[]).some((s) => s.name === name))
        return { name: row.name, destination: row.destination };
    } catch {
      // a plan whose stack list does not read covers nothing
    }
  }
  return null;
}

export function registerStackJobs(ctx: AppContext): void {
  for (const [kind, job] of Object.entries(STACK_JOBS) as [
    StackJobKind,
    (typeof STACK_JOBS)[StackJobKind],
  ][]) {
    ctx.jobs.register(job, {
      run: async (handle, params) => {
        assertNoBackupOf(ctx, params.stack);
        return (await work()).runStackJob(ctx, handle, kind, params);
      },
    });
  }
}
