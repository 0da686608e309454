/** Which job states a rule applies to: recovery takes the unfinished, retention the ended. */
import type { JobState } from './types.ts';

/** States a stopped service leaves behind: recovery records them `interrupted`. */
export const UNFINISHED_STATES = ['running', 'queued'] as const satisfies readonly JobState[];

/** States of a job that is over: only such a job is ever pruned. */
export const ENDED_STATES = [
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
  'blocked',
] as const satisfies readonly JobState[];
