/**
 * What the stack jobs need beyond the stack operations' own ports (`StacksDeps`): the backups that
 * hold a stack, the raise-once conditions of image updates, and the drift watcher's record of the
 * files the service wrote. The api-server wires its job runner and SQLite here; tests pass
 * `memoryStackJobPorts()` (test-support).
 */
import type { StacksDeps } from '../stacks/ports.ts';

/** The backups side (owned by the backups feature): a stack's data is backed up by a plan. */
export interface StackBackups {
  /** A backup or restore job running now that holds the stack, if any. */
  runningOf(stack: string): { id: string } | null;
  /** A backup plan (enabled or not) that holds the stack, if any. */
  planCovering(stack: string): { name: string; destination: string } | null;
  /** Whether the backup plan exists. */
  hasPlan(plan: string): boolean;
  /** Runs the backup plan as its own job and waits for its end; null when the plan is gone. */
  runPlan(plan: string): Promise<{ jobId: string; state: string; error: string | null } | null>;
}

/** Conditions raised once until cleared (the server's `ctx.conditions`). */
export interface StackConditions {
  /** Keys of the conditions holding now that start with `prefix`. */
  openKeys(prefix: string): Promise<string[]>;
  hold(
    key: string,
    report: { eventType: string; subject: string; title: string; message: string },
    source: string,
  ): Promise<unknown>;
  clear(key: string): Promise<unknown>;
}

export interface StackJobPorts {
  stacks: StacksDeps;
  backups: StackBackups;
  conditions: StackConditions;
  /** A file the service no longer generates (the removed stack's compose file). */
  forgetFile(path: string): Promise<void>;
}
