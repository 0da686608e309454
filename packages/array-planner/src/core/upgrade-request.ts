import { confirmationRefusal, diskJobRunning, invalidPlan } from './refusals.ts';
import { nextParityMountpoint } from './parity-mountpoint.ts';
import type { DiskUpgradePlan, PlanInput, PlanResult } from './types.ts';
import { planUpgrade } from './upgrade-plan.ts';

export interface UpgradeRequestInput extends PlanInput {
  /** What the client sent back from the plan. */
  newMountpoint?: string | null | undefined;
  confirmation?: unknown;
  /** A disk job queued or running, if any. */
  runningDiskJobId: string | null;
}

export interface AcceptedUpgrade {
  plan: DiskUpgradePlan;
  jobType: 'disk_upgrade_data' | 'disk_upgrade_parity';
}

/**
 * The refusals of the upgrade operation (03 §12), in order: everything the plan checks, a stale
 * `newMountpoint`, the typed confirmation, another disk job. No array start/stop state is asked
 * for (03 §12 step 4, revised 2026-11-28): the array stays started, and neither a data nor a
 * parity upgrade needs the pool (the jobs read and write the disks themselves).
 */
export function checkUpgradeRequest(input: UpgradeRequestInput): PlanResult<AcceptedUpgrade> {
  const planned = planUpgrade(input);
  if (planned.refusal) return { refusal: planned.refusal };
  const plan = planned.plan;
  const sent = input.newMountpoint ?? null;
  if (plan.role === 'parity') {
    const fresh = nextParityMountpoint(input.rows);
    if (sent !== fresh) {
      return {
        refusal: invalidPlan(
          'new_mountpoint_mismatch',
          sent === null
            ? `A parity upgrade needs the plan's newMountpoint: the new parity disk will be mounted at ${fresh}. Send "newMountpoint": "${fresh}" as the plan gave it.`
            : `The plan is stale: the new parity disk would now be mounted at ${fresh}, not ${sent}. Ask for a new plan and send its newMountpoint.`,
          { expected: fresh, given: sent },
        ),
      };
    }
  } else if (sent !== null) {
    return {
      refusal: invalidPlan(
        'new_mountpoint_mismatch',
        `A data disk keeps its mountpoint ${plan.mountpoint}: leave newMountpoint out or null.`,
        { expected: null, given: sent },
      ),
    };
  }
  const confirmation = confirmationRefusal(plan.replacementDevice, input.confirmation);
  if (confirmation) return { refusal: confirmation };
  if (input.runningDiskJobId !== null) return { refusal: diskJobRunning(input.runningDiskJobId) };
  return { plan: { plan, jobType: plan.role === 'data' ? 'disk_upgrade_data' : 'disk_upgrade_parity' } };
}
