/**
 * The stack operations as jobs (issue 35): `stack.start|stop|restart|remove|update`, one at a time
 * per stack (group `stack:<name>`). Declared here, implemented by `stackJobImplementation`, started
 * by the kind (`runner.start(STACK_JOBS.start, { stack })`).
 */
import { defineJob, type JobKind } from '@appliance/jobs';

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
export const STACK_JOB_KINDS = Object.keys(STACK_JOBS) as StackJobKind[];
