import { confirmationRefusal, diskJobRunning } from './refusals.ts';
import { planReplace } from './replace-plan.ts';
import type { DiskReplacePlan, PlanInput, PlanResult } from './types.ts';

export interface ReplaceRequestInput extends PlanInput {
  confirmation?: unknown;
  /** A disk job running now, if any. */
  runningDiskJobId: string | null;
  /**
   * What the slot's mountpoint directory holds while nothing is mounted there (a data slot whose
   * disk failed): files the pool wrote onto the system disk meanwhile. A few names, or empty.
   */
  strayEntries: readonly string[];
}

export interface AcceptedReplace {
  plan: DiskReplacePlan;
  jobType: 'disk_replace_data' | 'disk_replace_parity';
}

/**
 * The refusals of the replace operation (issue 21), in order: everything the replace plan checks
 * (03 §11), the typed confirmation, another disk job, and files in the empty mountpoint (mounting
 * the new disk over them would hide them).
 */
export function checkReplaceRequest(input: ReplaceRequestInput): PlanResult<AcceptedReplace> {
  const planned = planReplace(input);
  if (planned.refusal) return { refusal: planned.refusal };
  const plan = planned.plan;
  const confirmation = confirmationRefusal(plan.replacementDevice, input.confirmation);
  if (confirmation) return { refusal: confirmation };
  if (input.runningDiskJobId !== null) return { refusal: diskJobRunning(input.runningDiskJobId) };
  if (input.strayEntries.length > 0) {
    return {
      refusal: {
        status: 409,
        code: 'mountpoint_not_empty',
        message: `${plan.mountpoint} holds files although no disk is mounted there (${input.strayEntries.slice(0, 3).join(', ')}${input.strayEntries.length > 3 ? ', …' : ''}): they were written to the system disk while the disk was missing. Move them away (they can go back through the pool afterwards), then send the request again.`,
        details: { mountpoint: plan.mountpoint, entries: input.strayEntries.slice(0, 20) },
      },
    };
  }
  return {
    plan: { plan, jobType: plan.role === 'data' ? 'disk_replace_data' : 'disk_replace_parity' },
  };
}
