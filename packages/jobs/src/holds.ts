/**
 * Exclusion by group: a job or a held operation of a group refuses any other of that group with
 * `409 job_running` naming it. Exclusive holders exclude everything of their groups; shared ones
 * run together and exclude only exclusive ones.
 */
import { type AppError, conflict } from '@appliance/common';
import type { Hold, HoldMode } from './types.ts';

/** Default titles of the operations that hold a group without being jobs. */
export const HOLD_TITLES: Record<string, string> = {
  'array.create': 'the array setup',
  'share_data.delete': 'a share data delete',
  'config.import': 'the configuration import',
  'job.recovery': 'settling a job a restart interrupted (stopping its tool, putting its work back in order)',
};

export class Holds {
  private readonly all = new Set<Hold>();

  /**
   * The holder that keeps `groups` from being taken in `mode`, or null: any holder of one of them
   * for an exclusive taker, an exclusive holder for a shared taker.
   */
  busy(groups: readonly string[], mode: HoldMode = 'exclusive'): Hold | null {
    for (const h of this.all) {
      if (mode === 'shared' && h.mode === 'shared') continue;
      if (h.groups.some((g) => groups.includes(g))) return h;
    }
    return null;
  }

  /** Adds a hold (checked by the caller in the same synchronous turn); returns its release. */
  add(h: Hold): () => void {
    this.all.add(h);
    return () => this.all.delete(h);
  }
}

/**
 * `409 job_running`, naming what runs and how to follow it; a cancel is suggested only when the
 * job can be cancelled now (`cancellable`: its current phase allows DELETE /jobs/:id).
 */
export function jobRunning(h: {
  type: string;
  title: string;
  target: string;
  jobId: string | null;
  cancellable?: boolean;
}): AppError {
  const follow = !h.jobId
    ? ' Wait for it to finish, then try again.'
    : h.cancellable
      ? ` Follow it with GET /api/v1/jobs/${h.jobId}, or cancel it with DELETE /api/v1/jobs/${h.jobId}; then try again.`
      : ` Follow it with GET /api/v1/jobs/${h.jobId} and try again once it has finished (it cannot be cancelled in its current phase).`;
  return conflict('job_running', `${capitalize(h.title)} is running (${h.target}).${follow}`, {
    ...(h.jobId ? { jobId: h.jobId } : {}),
    type: h.type,
    target: h.target,
  });
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
