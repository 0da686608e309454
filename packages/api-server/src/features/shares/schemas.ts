/** Request and response schemas of the shares feature (valibot; the OpenAPI document uses them too). */
import {
  ACCESS_LEVELS,
  CACHE_MODES,
  CREATE_POLICIES,
  MAX_GRANTS,
  SHARE_NAME_PATTERN,
} from '@appliance/shares';
import * as v from 'valibot';
import { Iso } from '../../http/schemas.ts';

export const ShareName = v.pipe(
  v.string(),
  v.regex(
    SHARE_NAME_PATTERN,
    'must be 1–64 ASCII letters, digits, _ or -, starting with a letter or digit (no dots, slashes or spaces)',
  ),
);
export const ShareNameParams = v.strictObject({ name: ShareName });

/** Ids in request bodies and the user-side path: a UUID in any letter case (lowercased by the core). */
export const AnyCaseUuid = v.pipe(
  v.string(),
  v.regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID'),
);
export const UserIdParams = v.strictObject({ id: AnyCaseUuid });

const Access = v.picklist(ACCESS_LEVELS, 'must be none, read-only or read-write');
const CacheMode = v.picklist(CACHE_MODES, 'must be cache-then-move, cache-only or array-only');
const CreatePolicy = v.picklist(CREATE_POLICIES, 'must be mfs, lfs, ff, epmfs or mspmfs');

/** An array of at most 256 grants; the size is checked before the items (a 10,000-item array is one issue). */
const grantList = <T extends v.GenericSchema>(item: T) =>
  v.pipe(
    v.array(v.unknown(), 'must be an array'),
    v.maxLength(MAX_GRANTS, `must list at most ${MAX_GRANTS} entries`),
    v.array(item),
  );

export const SharePermissionsBody = v.strictObject({
  users: grantList(v.strictObject({ userId: AnyCaseUuid, access: Access })),
  groups: grantList(v.strictObject({ groupId: AnyCaseUuid, access: Access })),
});

export const UserPermissionsBody = v.strictObject({
  permissions: grantList(v.strictObject({ shareName: ShareName, access: Access })),
});

const Smb = v.strictObject({ enabled: v.boolean(), browseable: v.boolean() });

export const ShareCreateBody = v.strictObject({
  name: ShareName,
  cacheMode: v.optional(CacheMode),
  createPolicy: v.optional(CreatePolicy),
  smb: v.optional(v.strictObject({ enabled: v.optional(v.boolean()), browseable: v.optional(v.boolean()) })),
});

export const ShareUpdateBody = v.strictObject({ cacheMode: CacheMode, createPolicy: CreatePolicy, smb: Smb });

export const ShareSchema = v.object({
  name: v.string(),
  path: v.string(),
  cacheMode: CacheMode,
  createPolicy: CreatePolicy,
  smb: v.object({ enabled: v.boolean(), browseable: v.boolean() }),
  createdAt: Iso,
  updatedAt: Iso,
});

export const SharePermissionsSchema = v.object({
  users: v.array(v.object({ userId: v.string(), username: v.string(), access: Access })),
  groups: v.array(v.object({ groupId: v.string(), name: v.string(), access: Access })),
});

export const UserPermissionsSchema = v.object({
  userId: v.string(),
  username: v.string(),
  permissions: v.array(v.object({ shareName: v.string(), access: Access })),
});

export const ShareAccessSchema = v.object({
  share: v.string(),
  available: v.boolean(),
  users: v.array(
    v.object({
      userId: v.string(),
      username: v.string(),
      access: Access,
      source: v.picklist(['user', 'group', 'none']),
    }),
  ),
});
