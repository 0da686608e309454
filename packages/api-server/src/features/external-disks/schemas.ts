import { DEVICE_PATTERN, EXTERNAL_FILESYSTEMS, LABEL_PATTERN, LABEL_RULE } from '@appliance/external-disk';
import * as v from 'valibot';
import { Iso } from '../../http/schemas.ts';

/** `:label` (07 §1): anything else, including `/`, `.`, `%`, spaces, non-ASCII → 400 bad_request. */
export const LabelSchema = v.pipe(v.string(), v.regex(LABEL_PATTERN, `must be a valid label: ${LABEL_RULE}`));
export const LabelParams = v.strictObject({ label: LabelSchema });

/** `POST /disks/external` (07 §4). */
export const RegisterBody = v.strictObject({
  device: v.pipe(v.string(), v.regex(DEVICE_PATTERN, 'must be a kernel path such as /dev/sde')),
  label: LabelSchema,
  backupDestination: v.optional(v.nullable(v.boolean())),
});

/** `POST /disks/external/:label/format` (07 §6.1). Optional fields may be absent or null. */
export const FormatBody = v.strictObject({
  confirmation: v.optional(
    v.nullable(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'))),
  ),
  filesystem: v.optional(
    v.nullable(v.picklist(EXTERNAL_FILESYSTEMS, 'must be one of xfs, ext4, btrfs, exfat')),
  ),
});

const nullableString = v.nullable(v.string());

/** `ExternalDisk` (07 §2.2), for the OpenAPI document. */
export const ExternalDiskSchema = v.object({
  label: v.string(),
  registered: v.boolean(),
  attached: v.boolean(),
  device: nullableString,
  mountpoint: v.string(),
  mounted: v.boolean(),
  boot: v.literal(false),
  filesystem: nullableString,
  fsLabel: nullableString,
  fsUuid: nullableString,
  partitions: v.array(
    v.object({
      device: v.string(),
      number: v.number(),
      sizeBytes: v.number(),
      filesystem: nullableString,
      label: nullableString,
    }),
  ),
  sizeBytes: v.nullable(v.number()),
  model: nullableString,
  serial: nullableString,
  wwn: nullableString,
  weakIdentity: v.boolean(),
  backupDestination: v.boolean(),
  formattedAt: v.nullable(Iso),
});

export const ExternalDiskList = v.object({ disks: v.array(ExternalDiskSchema) });

/** `POST /disks/external/:label/mount`. */
export const MountSchema = v.object({ disk: ExternalDiskSchema, mounted: v.boolean() });

/** `POST /disks/external/:label/eject`. */
export const EjectSchema = v.object({
  disk: ExternalDiskSchema,
  unmounted: v.boolean(),
  poweredDown: v.boolean(),
  note: v.string(),
});

/** Mount and eject take no body: none, or `{}`. */
export const NoBody = v.strictObject({});
