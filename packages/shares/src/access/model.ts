/** The share model (08 §6) and the access model (06 §1): plain data, no I/O. */

/** Share names: ASCII letters, digits, `_` and `-`, starting with a letter or digit, 1–64 characters. */
export const SHARE_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

/** Usernames (08 §4.1); the Samba and Unix name is the lowercase form. */
export const USERNAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,31}$/;

export const CACHE_MODES = ['cache-then-move', 'cache-only', 'array-only'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

export const CREATE_POLICIES = ['mfs', 'lfs', 'ff', 'epmfs', 'mspmfs'] as const;
export type CreatePolicy = (typeof CREATE_POLICIES)[number];

export const ACCESS_LEVELS = ['none', 'read-only', 'read-write'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/** Limit on the number of grants in one request (06 §2.1, §3). */
export const MAX_GRANTS = 256;

export interface SmbSettings {
  enabled: boolean;
  browseable: boolean;
}

/** A share definition as stored (08 §6). `path` is derived: `/mnt/user/<name>`. */
export interface ShareDefinition {
  name: string;
  cacheMode: CacheMode;
  createPolicy: CreatePolicy;
  smb: SmbSettings;
  createdAt: string;
  updatedAt: string;
}

/** The API shape of a share. */
export interface Share extends ShareDefinition {
  path: string;
}

export const isShareName = (value: unknown): value is string =>
  typeof value === 'string' && SHARE_NAME_PATTERN.test(value);

export const isCacheMode = (value: unknown): value is CacheMode =>
  typeof value === 'string' && (CACHE_MODES as readonly string[]).includes(value);

export const isAccessLevel = (value: unknown): value is AccessLevel =>
  typeof value === 'string' && (ACCESS_LEVELS as readonly string[]).includes(value);

/** The pooled view of a share (logical path). */
export const sharePoolPath = (name: string): string => `/mnt/user/${name}`;

export const toShare = (def: ShareDefinition): Share => ({ ...def, path: sharePoolPath(def.name) });

/** Whether a cache mode keeps files on the cache disk (and so needs one). */
export const modeNeedsCache = (mode: CacheMode): boolean => mode !== 'array-only';

/** The default cache mode of a new share: `cache-then-move` with a cache disk, else `array-only`. */
export const defaultCacheMode = (hasCache: boolean): CacheMode =>
  hasCache ? 'cache-then-move' : 'array-only';

/** Level order for "the widest group grant wins" (06 §4). */
export const ACCESS_RANK: Record<AccessLevel, number> = { none: 0, 'read-only': 1, 'read-write': 2 };

/** Byte-order comparison (code units), used wherever the contract says "sorted". */
export const compareBytes = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Sort key of principals: the name compared in lowercase, ties by id (06 §2.2). */
export const byLowerNameThenId =
  <T>(name: (t: T) => string, id: (t: T) => string) =>
  (a: T, b: T): number =>
    compareBytes(name(a).toLowerCase(), name(b).toLowerCase()) || compareBytes(id(a), id(b));
