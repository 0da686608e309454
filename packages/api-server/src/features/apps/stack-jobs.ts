/**
 * The stack operations as jobs on the job runner (issue 35): `stack.start|stop|restart|remove`,
 * one at a time per stack (group `stack:<name>`), refused while a backup of the stack runs. The
 * operations load on the first run (stack-work.ts).
 */
import { AppError } from '@appliance/common';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { backupPlans } from '../../db/schema.ts';
import type { JobHandle } from '../../services/jobs.ts';

export const STACK_JOBS = {
  start: { type: 'stack.start', title: 'stack start' },
  stop: { type: 'stack.stop', title: 'stack stop' },
  restart: { type: 'stack.restart', title: 'stack restart' },
  remove: { type: 'stack.remove', title: 'stack removal' },
  update: { type: 'stack.update', title: 'stack update' },
} as const;
export type StackJobKind = keyof typeof STACK_JOBS;

export interface StackJobParams {
  stack: string;
  removeData?: boolean;
  confirm?: string;
  healthTimeoutSeconds?: number;
  /** The backup plan to run first (an update asked for a snapshot). */
  snapshotPlan?: string;
}

const work = () => import('./stack-work.ts');

/** A running backup (or restore) whose plan holds the stack → 409 stack_backup_running. */
export function assertNoBackupOf(ctx: AppContext, name: string): void {
  for (const job of ctx.jobs.running()) {
    if (!job.type.startsWith('backup.')) continue;
    const p = job.params as { plan?: unknown; part?: { kind?: unknown; name?: unknown } };
    let covers = p.part?.kind === 'stack' && p.part.name === name;
    if (!covers && typeof p.plan === 'string' && job.type === 'backup.run') {
      const row = ctx.db
        .select({ stacks: backupPlans.stacks })
        .from(backupPlans)
        .where(eq(backupPlans.name, p.plan))
        .get();
      try {
        covers = ((row ? JSON.parse(row.stacks) : []) as { name: string }[]).some((s) => s.name === name);
      } catch {
        covers = false;
      }
    }
    if (covers)
      throw new AppError(
        409,
        'stack_backup_running',
        `A backup of the stack ${name} is running (job ${job.id}); wait for it to finish and try again.`,
        { stack: name, job: job.id },
      );
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
  for (const [kind, def] of Object.entries(STACK_JOBS) as [
    StackJobKind,
    (typeof STACK_JOBS)[StackJobKind],
  ][]) {
    ctx.jobs.register<StackJobParams>({
      type: def.type,
      title: def.title,
      groups: (p) => [`stack:${p.stack}`],
      run: async (job: JobHandle, params) => {
        assertNoBackupOf(ctx, params.stack);
        return (await work()).runStackJob(ctx, job, kind, params);
      },
    });
  }
}
