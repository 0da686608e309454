/**
 * The stack jobs' backups port (`StackBackups`) from what the backups feature records: the backup
 * and restore jobs running, the plans with their stack lists, and a plan run as its own job.
 */
import type { StackBackups } from '../jobs/ports.ts';

/** A backup plan as stored: its stack list is JSON (`[{ "name": … }, …]`). */
export interface StoredPlan {
  name: string;
  destination: string;
  stacks: string;
}

export interface BackupRecords {
  /** Restore jobs running now, with the stack they restore (null: another part). */
  runningRestores(): { id: string; stack: string | null }[];
  /** Backup jobs running now, with their plan. */
  runningBackups(): { id: string; plan: string }[];
  plans(): StoredPlan[];
  /** Runs the plan as its own job and waits for its end. */
  runPlan(plan: StoredPlan): Promise<{ jobId: string; state: string; error: string | null }>;
}

/** Whether the plan's stack list holds the stack (a list that does not read holds none). */
export function planHoldsStack(plan: StoredPlan | undefined, name: string): boolean {
  try {
    return ((plan ? JSON.parse(plan.stacks) : []) as { name: string }[]).some((s) => s.name === name);
  } catch {
    return false;
  }
}

export function createStackBackups(records: BackupRecords): StackBackups {
  const plan = (name: string) => records.plans().find((p) => p.name === name);
  return {
    runningOf(name) {
      const restoring = records.runningRestores().filter((j) => j.stack === name);
      const backingUp = records.runningBackups().filter((j) => planHoldsStack(plan(j.plan), name));
      return restoring[0] ?? backingUp[0] ?? null;
    },
    // the enabled-or-not plan that holds the stack, if any (its app data is backed up)
    planCovering(name) {
      const found = records.plans().find((p) => planHoldsStack(p, name));
      return found ? { name: found.name, destination: found.destination } : null;
    },
    hasPlan: (name) => plan(name) !== undefined,
    async runPlan(name) {
      const found = plan(name);
      return found ? records.runPlan(found) : null;
    },
  };
}
