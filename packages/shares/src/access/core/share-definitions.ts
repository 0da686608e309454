/**
 * Share create and update decisions (08 §6): the ordered 409 checks and the resulting definition.
 * Pure: the array state and the clock's reading come in as data.
 */
import { migrationInProgress, noArray, noCache, shareExists } from '../errors.ts';
import {
  type CacheMode,
  type CreatePolicy,
  defaultCacheMode,
  modeNeedsCache,
  type ShareDefinition,
  type SmbSettings,
} from '../model.ts';

export interface ShareCreateInput {
  name: string;
  cacheMode?: CacheMode;
  createPolicy?: CreatePolicy;
  smb?: Partial<SmbSettings>;
}

export interface ShareUpdateInput {
  cacheMode: CacheMode;
  createPolicy: CreatePolicy;
  smb: SmbSettings;
}

/** What the checks need to know about the array and the existing shares. */
export interface ShareEnvironment {
  arrayExists: boolean;
  migrationPending: boolean;
  hasCache: boolean;
  /** The existing share whose name equals this one ignoring case, if any. */
  nameTakenBy(name: string): string | null;
}

/** 08 §6 POST: migration pending → no array → name taken → mode needs a missing cache. */
export function planShareCreate(
  input: ShareCreateInput,
  env: ShareEnvironment,
  now: string,
): ShareDefinition {
  if (env.migrationPending) throw migrationInProgress();
  if (!env.arrayExists) throw noArray();
  const taken = env.nameTakenBy(input.name);
  if (taken !== null) throw shareExists(input.name, taken);
  const cacheMode = input.cacheMode ?? defaultCacheMode(env.hasCache);
  if (modeNeedsCache(cacheMode) && !env.hasCache) throw noCache(cacheMode);
  return {
    name: input.name,
    cacheMode,
    createPolicy: input.createPolicy ?? 'mfs',
    smb: { enabled: input.smb?.enabled ?? true, browseable: input.smb?.browseable ?? true },
    createdAt: now,
    updatedAt: now,
  };
}

/** 08 §6 PUT: full replace of the mutable fields; the name and creation time stay. */
export function planShareUpdate(
  existing: ShareDefinition,
  input: ShareUpdateInput,
  env: Pick<ShareEnvironment, 'migrationPending' | 'hasCache'>,
  now: string,
): ShareDefinition {
  if (env.migrationPending) throw migrationInProgress();
  if (modeNeedsCache(input.cacheMode) && !env.hasCache) throw noCache(input.cacheMode);
  return {
    name: existing.name,
    cacheMode: input.cacheMode,
    createPolicy: input.createPolicy,
    smb: { enabled: input.smb.enabled, browseable: input.smb.browseable },
    createdAt: existing.createdAt,
    updatedAt: now,
  };
}
