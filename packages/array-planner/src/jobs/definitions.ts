/**
 * The disk jobs' kinds (issue 21, 03 §11–§12): `disk.upgrade` (a data or parity slot onto a larger
 * disk) and `disk.replace` (a failed disk rebuilt from parity), in the `array` group.
 */
import { defineJob } from '@appliance/jobs';
import type { DiskJobParams } from '../core/disk-job.ts';

/** Every array job shares this exclusion group (sync, scrub, disk jobs, array setup, share data delete). */
export const ARRAY_GROUP = 'array';

/** What a disk job records: where the slot is and how long each phase took (shape per outcome). */
export type DiskJobResult = Record<string, unknown>;

/** `disk.upgrade`: a data or parity disk copied onto a bigger one, the slot switched. */
export const diskUpgradeJob = defineJob<DiskJobParams, DiskJobResult>({
  type: 'disk.upgrade',
  title: 'disk upgrade',
  groups: [ARRAY_GROUP],
});

/** `disk.replace`: a missing or failing disk rebuilt onto a new one. */
export const diskReplaceJob = defineJob<DiskJobParams, DiskJobResult>({
  type: 'disk.replace',
  title: 'disk replace',
  groups: [ARRAY_GROUP],
});

export const DISK_JOBS: ReadonlySet<string> = new Set([diskUpgradeJob.type, diskReplaceJob.type]);
