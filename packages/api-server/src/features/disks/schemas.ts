import { CREATE_POLICIES, FILESYSTEMS, REMOVAL_STATES } from '@appliance/array-planner';
import * as v from 'valibot';
import { Iso } from '../../http/schemas.ts';

/** A kernel path (03 §6): `..`, `/dev/disk/by-id/…`, `/dev/mapper/…`, relative paths fail here. */
export const Device = v.pipe(
  v.string(),
  v.regex(/^\/dev\/[a-z][a-z0-9]{0,31}$/, 'must be a kernel path such as /dev/sdb'),
);
/** A data, parity or cache slot (03 §6). */
export const SlotMountpoint = v.pipe(
  v.string(),
  v.regex(
    /^\/mnt\/(disk[1-9][0-9]{0,2}|parity[1-9][0-9]{0,2}|cache)$/,
    'must be /mnt/diskN, /mnt/parityN or /mnt/cache',
  ),
);
const Filesystem = v.picklist(FILESYSTEMS, 'must be one of xfs, ext4, btrfs');
const Confirmation = v.pipe(v.string(), v.maxLength(4096, 'must be at most 4096 characters'));

/** `POST /disks/array/upgrade/plan` and `/replace/plan` (03 §6). */
export const PlanBody = v.strictObject({
  mountpoint: SlotMountpoint,
  device: Device,
  filesystem: v.optional(v.nullable(Filesystem)),
});

/** `POST /disks/array/upgrade` (03 §12). */
export const UpgradeBody = v.strictObject({
  ...PlanBody.entries,
  newMountpoint: v.optional(v.nullable(SlotMountpoint)),
  confirmation: v.optional(v.nullable(Confirmation)),
});

/** `POST /disks/array/replace` (issue 21): the replace plan's values and the typed confirmation. */
export const ReplaceBody = v.strictObject({
  ...PlanBody.entries,
  confirmation: v.optional(v.nullable(Confirmation)),
});

/** `POST /disks/array` (08 §9.3). */
export const ArraySetupBody = v.strictObject({
  disks: v.pipe(
    v.array(
      v.strictObject({
        device: Device,
        role: v.picklist(['parity', 'data', 'cache'], 'must be parity, data or cache'),
        filesystem: v.optional(v.nullable(Filesystem)),
      }),
    ),
    v.minLength(1, 'must list at least one disk'),
    v.maxLength(64, 'must list at most 64 disks'),
  ),
  createPolicy: v.optional(
    v.nullable(v.picklist(CREATE_POLICIES, 'must be one of mfs, lfs, ff, epmfs, mspmfs')),
  ),
  confirmation: v.optional(v.nullable(Confirmation)),
});

/** `PUT /disks/array/removal-state` (08 §9.4). */
export const RemovalStateBody = v.strictObject({
  mountpoint: SlotMountpoint,
  removalState: v.nullable(
    v.picklist(REMOVAL_STATES, 'must be evacuating, evacuated, unpooled, unlisted or null'),
  ),
});

/** `POST /migration/pending` (08 §10). */
export const MigrationBody = v.strictObject({ pending: v.boolean() });

// ── responses (OpenAPI documentation) ───────────────────────────────────────────────────────────
const nullableString = v.nullable(v.string());
const Partition = v.object({
  device: v.string(),
  number: v.number(),
  sizeBytes: v.number(),
  filesystem: nullableString,
  label: nullableString,
  fsUuid: nullableString,
});

export const DiskEntrySchema = v.object({
  device: v.string(),
  sizeBytes: v.number(),
  model: nullableString,
  wwn: nullableString,
  serial: nullableString,
  byIdName: nullableString,
  weakIdentity: v.boolean(),
  filesystem: nullableString,
  label: nullableString,
  fsUuid: nullableString,
  fsDevice: nullableString,
  partitions: v.array(Partition),
  mountpoints: v.array(v.string()),
  holders: v.array(v.string()),
  inUse: v.boolean(),
  probeFailed: v.boolean(),
  boot: v.boolean(),
  foreignStick: v.boolean(),
  arrayMountpoint: nullableString,
  externalLabel: nullableString,
});

export const DiskListSchema = v.object({
  labMode: v.boolean(),
  bootResolved: v.boolean(),
  disks: v.array(DiskEntrySchema),
});

export const SlotSchema = v.object({
  id: v.number(),
  role: v.picklist(['data', 'parity', 'cache']),
  roleIndex: v.number(),
  /** The disk's kernel path now (found by the slot's identity), null when it is not attached or not known. */
  device: v.pipe(
    nullableString,
    v.description(
      "The slot's disk as the kernel names it now, found by its filesystem UUID (and WWN/serial) at read time; null when the disk is not attached, matches twice, or the inventory could not be read. Never the path recorded at setup.",
    ),
  ),
  filesystem: Filesystem,
  fsUuid: v.string(),
  wwn: nullableString,
  serial: nullableString,
  byIdName: nullableString,
  weakIdentity: v.boolean(),
  sizeBytes: v.nullable(v.number()),
  mountpoint: v.string(),
  removalState: v.nullable(v.picklist(REMOVAL_STATES)),
  mounted: v.boolean(),
});

export const ArraySchema = v.object({
  configured: v.boolean(),
  createPolicy: v.optional(v.string()),
  poolMounted: v.optional(v.boolean()),
  migrationPending: v.optional(v.boolean()),
  disks: v.array(SlotSchema),
});

const Warning = v.object({
  code: v.string(),
  message: v.string(),
  details: v.record(v.string(), v.unknown()),
});
export const PlanSchema = v.object({
  mountpoint: v.string(),
  role: v.picklist(['data', 'parity']),
  roleIndex: v.number(),
  previousDevice: v.string(),
  previousSizeBytes: v.nullable(v.number()),
  previousUsedBytes: v.nullable(v.number()),
  replacementDevice: v.string(),
  model: nullableString,
  wwn: nullableString,
  serial: nullableString,
  sizeBytes: v.number(),
  weakIdentity: v.boolean(),
  currentFilesystem: nullableString,
  currentLabel: nullableString,
  filesystem: Filesystem,
  newMountpoint: nullableString,
  steps: v.array(v.string()),
  confirmation: v.string(),
  warnings: v.array(Warning),
  estimate: v.object({
    bytesToCopy: v.number(),
    basis: v.picklist(['used_bytes', 'disk_size', 'parity_file']),
    passes: v.number(),
    assumedBytesPerSecond: v.number(),
    seconds: v.number(),
  }),
});
export const ReplacePlanSchema = v.object({ ...PlanSchema.entries, rebuildCommand: v.string() });

/** The 202 answer of an upgrade or a replace: the job queued, of one of these types. */
const queued = <const T extends string[]>(types: T) =>
  v.object({ jobId: v.string(), type: v.picklist(types), status: v.literal('queued') });
export const UpgradeAcceptedSchema = queued(['disk_upgrade_data', 'disk_upgrade_parity']);
export const ReplaceAcceptedSchema = queued(['disk_replace_data', 'disk_replace_parity']);

export const MigrationSchema = v.object({ pending: v.boolean(), since: v.nullable(Iso) });
