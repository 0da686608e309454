/**
 * The scheduled reboot (issue 38): set for a time (at most `MAX_REBOOT_AHEAD_DAYS` ahead; none or
 * past: now) or cancelled, each audited; and the reboot state as shown, from the schedule and the
 * held `reboot_required` condition.
 */
import { badRequest, type Clock, isoMillis, type Refusal, refuse } from '@appliance/common';
import { rebootDueAt } from './reboot.ts';

export interface RebootSchedule {
  rebootAt: string | null;
  rebootBy: string | null;
}

export interface RebootSchedulePorts {
  clock: Clock;
  read(): RebootSchedule;
  /** Writes the schedule and its audit row together. */
  write(
    schedule: RebootSchedule,
    audit: { operation: string; target: string; details?: Record<string, unknown> },
  ): Promise<void>;
}

const invalidAt = (message: string): Refusal => {
  const err = badRequest([{ path: 'at', message }]);
  return refuse(err.code, err.message, err.details);
};

/** Schedules the reboot for `at` (RFC 3339; undefined: now), by `by` (a username, `local`, `system`). */
export async function scheduleReboot(
  ports: RebootSchedulePorts,
  at: string | undefined,
  by: string,
): Promise<void> {
  const due = rebootDueAt(at, ports.clock.now());
  if ('error' in due) throw invalidAt(due.error);
  const when = isoMillis(due.at);
  await ports.write(
    { rebootAt: when, rebootBy: by },
    { operation: 'system.reboot.schedule', target: 'system', details: { at: when } },
  );
}

/** Cancels the scheduled reboot; nothing scheduled: nothing written. */
export async function cancelReboot(ports: RebootSchedulePorts): Promise<void> {
  if (ports.read().rebootAt === null) return;
  await ports.write(
    { rebootAt: null, rebootBy: null },
    { operation: 'system.reboot.cancel', target: 'system' },
  );
}

/** The reboot state as shown: required (the held condition: its packages and reason), and scheduled. */
export function rebootStatus(
  schedule: RebootSchedule,
  held: { value: string | null; message?: string | null } | null,
) {
  return {
    required: held !== null,
    packages: held?.value ? held.value.split(', ') : [],
    reason: held?.message ?? null,
    scheduledAt: schedule.rebootAt,
    scheduledBy: schedule.rebootBy,
  };
}
