/**
 * The watchers' settings (thresholds, intervals, the UPS): defaults and the valibot schema of
 * `PUT /settings/watchers` (a full replace, like `PUT /settings`).
 */
import * as v from 'valibot';

/** Every watcher of the service, in the order `GET /health` lists them. */
export const WATCHER_NAMES = [
  'disks',
  'space',
  'smart',
  'drift',
  'certificate',
  'containers',
  'images',
  'ups',
] as const;
export type WatcherName = (typeof WATCHER_NAMES)[number];

/**
 * Default intervals in seconds. Disks every 5 s (an offline disk is seen within 10 s), the UPS
 * every 5 s (a switch to battery leaves minutes), containers every 15 s (Docker's own health checks
 * run every 30 s by default), space every minute, drift every 5 minutes, SMART hourly (as smartd's
 * default 30 minutes, halved again because `-n standby` skips sleeping disks anyway), the
 * certificate and the registries once a day.
 */
export const DEFAULT_INTERVALS: Readonly<Record<WatcherName, number>> = {
  disks: 5,
  space: 60,
  smart: 3600,
  drift: 300,
  certificate: 86_400,
  containers: 15,
  images: 86_400,
  ups: 5,
};

/** Lowest accepted interval per watcher (SMART and the registries are not hammered). */
export const MIN_INTERVALS: Readonly<Record<WatcherName, number>> = {
  disks: 1,
  space: 5,
  smart: 300,
  drift: 10,
  certificate: 60,
  containers: 1,
  images: 3600,
  ups: 1,
};

/** A week: no watcher waits longer. */
export const MAX_INTERVAL = 604_800;

export interface SpaceThresholds {
  /** `pool_above_threshold` when the pool's used share reaches this percentage. */
  poolUsedPercent: number;
  /** `cache_above_threshold` when the cache's used share reaches this percentage. */
  cacheUsedPercent: number;
  /**
   * `disk_near_minfreespace` when a data disk's free space falls below this multiple of the pool's
   * `minfreespace` (mergerfs stops placing new files on it below 1×).
   */
  diskMinFreeFactor: number;
}

/**
 * SMART thresholds. The ATA counters warn when their raw value reaches the number given (0 turns
 * one off): Backblaze's drive data found any non-zero raw value of 5, 187, 188, 197 and 198 a strong
 * predictor of failure, so the defaults are 1.
 */
export interface SmartThresholds {
  reallocatedSectors: number;
  reportedUncorrectable: number;
  commandTimeouts: number;
  pendingSectors: number;
  offlineUncorrectable: number;
  crcErrors: number;
  /** ATA (SATA hard disks and SSDs): warn at this temperature. */
  temperatureC: number;
  /** NVMe composite temperature warning. */
  nvmeTemperatureC: number;
  /** NVMe: warn when the available spare falls to this percentage (the drive's own threshold is failure). */
  nvmeAvailableSparePercent: number;
  /** NVMe: warn when the endurance used reaches this percentage. */
  nvmePercentageUsed: number;
  /** NVMe media and data integrity errors: warn at this count. */
  nvmeMediaErrors: number;
}

export interface UpsSettings {
  /** The NUT server (`upsd`). */
  host: string;
  port: number;
  /** The UPS name in upsd (`ups.conf` section). */
  name: string;
}

export interface WatcherSettings {
  /** Seconds between two cycles of each watcher. */
  intervals: Record<WatcherName, number>;
  space: SpaceThresholds;
  smart: SmartThresholds;
  /** `certificate_expiring` this many days before the TLS certificate expires. */
  certificateDays: number;
  /** The UPS to watch through NUT, or null (no UPS: the UPS watcher does not run). */
  ups: UpsSettings | null;
}

export const DEFAULT_SETTINGS: WatcherSettings = {
  intervals: { ...DEFAULT_INTERVALS },
  space: { poolUsedPercent: 90, cacheUsedPercent: 90, diskMinFreeFactor: 2 },
  smart: {
    reallocatedSectors: 1,
    reportedUncorrectable: 1,
    commandTimeouts: 1,
    pendingSectors: 1,
    offlineUncorrectable: 1,
    crcErrors: 1,
    temperatureC: 55,
    nvmeTemperatureC: 70,
    nvmeAvailableSparePercent: 20,
    nvmePercentageUsed: 90,
    nvmeMediaErrors: 1,
  },
  certificateDays: 30,
  ups: null,
};

const int = (name: string, min: number, max: number) =>
  v.pipe(
    v.number(`${name} must be a number`),
    v.integer(`${name} must be a whole number`),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

const intervals = v.strictObject(
  Object.fromEntries(WATCHER_NAMES.map((n) => [n, int(n, MIN_INTERVALS[n], MAX_INTERVAL)])) as Record<
    WatcherName,
    ReturnType<typeof int>
  >,
);

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[?[0-9A-Fa-f:.]+\]?)$/;

export const WatcherSettingsSchema = v.strictObject({
  intervals,
  space: v.strictObject({
    poolUsedPercent: int('poolUsedPercent', 1, 100),
    cacheUsedPercent: int('cacheUsedPercent', 1, 100),
    diskMinFreeFactor: v.pipe(
      v.number('diskMinFreeFactor must be a number'),
      v.minValue(1, 'diskMinFreeFactor must be at least 1'),
      v.maxValue(100, 'diskMinFreeFactor must be at most 100'),
    ),
  }),
  smart: v.strictObject({
    reallocatedSectors: int('reallocatedSectors', 0, 1_000_000),
    reportedUncorrectable: int('reportedUncorrectable', 0, 1_000_000),
    commandTimeouts: int('commandTimeouts', 0, 1_000_000),
    pendingSectors: int('pendingSectors', 0, 1_000_000),
    offlineUncorrectable: int('offlineUncorrectable', 0, 1_000_000),
    crcErrors: int('crcErrors', 0, 1_000_000),
    temperatureC: int('temperatureC', 30, 100),
    nvmeTemperatureC: int('nvmeTemperatureC', 30, 120),
    nvmeAvailableSparePercent: int('nvmeAvailableSparePercent', 0, 100),
    nvmePercentageUsed: int('nvmePercentageUsed', 1, 255),
    nvmeMediaErrors: int('nvmeMediaErrors', 0, 1_000_000),
  }),
  certificateDays: int('certificateDays', 1, 365),
  ups: v.nullable(
    v.strictObject({
      host: v.pipe(
        v.string('host must be a string'),
        v.maxLength(253, 'host must be at most 253 characters'),
        v.regex(HOST, 'host must be a host name or an IP address'),
      ),
      port: int('port', 1, 65_535),
      name: v.pipe(
        v.string('name must be a string'),
        v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'name is the UPS name in upsd: letters, digits, _ . -'),
      ),
    }),
  ),
});

/**
 * Stored settings read back: anything missing (an older row, a new threshold) takes its default,
 * anything unreadable is replaced by the default, so the watchers always run on valid settings.
 */
export function settingsFromStored(stored: unknown): WatcherSettings {
  if (!isObject(stored)) return structuredClone(DEFAULT_SETTINGS);
  const merged = {
    intervals: known(DEFAULT_SETTINGS.intervals, stored['intervals']),
    space: known(DEFAULT_SETTINGS.space, stored['space']),
    smart: known(DEFAULT_SETTINGS.smart, stored['smart']),
    certificateDays: stored['certificateDays'] ?? DEFAULT_SETTINGS.certificateDays,
    ups: stored['ups'] ?? null,
  };
  const parsed = v.safeParse(WatcherSettingsSchema, merged);
  return parsed.success ? parsed.output : structuredClone(DEFAULT_SETTINGS);
}

/** The settings stored as JSON text (absent: none stored yet); unparsable text gives the defaults. */
export function settingsFromJson(text: string | null | undefined): WatcherSettings {
  if (text == null) return structuredClone(DEFAULT_SETTINGS);
  try {
    return settingsFromStored(JSON.parse(text));
  } catch {
    return structuredClone(DEFAULT_SETTINGS);
  }
}

/** The defaults, with the stored value of every key the defaults know. */
function known<T extends object>(defaults: T, stored: unknown): T {
  const out = { ...defaults } as Record<string, unknown>;
  if (isObject(stored)) for (const k of Object.keys(defaults)) if (k in stored) out[k] = stored[k];
  return out as T;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x);
