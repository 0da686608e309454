/**
 * SMART (smart_warning, smart_failure): the interpretation of `smartctl --json -a` output and its
 * thresholds. Following real failure data rather than only the vendor's thresholds: Backblaze's
 * drive statistics found that any non-zero raw value of attributes 5 (reallocated sectors), 187
 * (reported uncorrectable), 188 (command timeouts), 197 (pending sectors) and 198 (offline
 * uncorrectable) goes with a much higher failure rate, while the normalised values rarely reach the
 * vendor's threshold before a disk dies. So those counters warn from 1 by default; the vendor's own
 * verdict (overall health FAILED, an attribute failing now) is a failure.
 */
import { type DiskLabel, describeDisk, plural } from './format.ts';
import type { Condition, Note, Observation } from './model.ts';
import type { SmartThresholds } from './settings.ts';

/** The ATA attributes watched, by id. */
export const ATA_COUNTERS = {
  5: { id: 'reallocatedSectors', name: 'reallocated sectors', unit: 'sector' },
  187: { id: 'reportedUncorrectable', name: 'reported uncorrectable errors', unit: 'error' },
  188: { id: 'commandTimeouts', name: 'command timeouts', unit: 'timeout' },
  197: { id: 'pendingSectors', name: 'pending sectors', unit: 'sector' },
  198: { id: 'offlineUncorrectable', name: 'offline uncorrectable sectors', unit: 'sector' },
  199: { id: 'crcErrors', name: 'interface CRC errors', unit: 'error' },
} as const;
export type AtaCounterId = keyof typeof ATA_COUNTERS;
const ATA_IDS = Object.keys(ATA_COUNTERS).map(Number) as AtaCounterId[];

export interface NvmeHealth {
  criticalWarning: number;
  mediaErrors: number;
  availableSpare: number | null;
  availableSpareThreshold: number | null;
  percentageUsed: number | null;
}

/** What one `smartctl --json -a -n standby` run says about a disk. */
export interface SmartReading {
  /**
   * `ok`: values read. `standby`: the disk sleeps and was not woken (`-n standby`). `unavailable`:
   * the device has no SMART smartctl can read (a loop device, a USB bridge it does not know, SMART
   * off). `error`: smartctl could not run as asked.
   */
  state: 'ok' | 'standby' | 'unavailable' | 'error';
  /** smartctl's own words for a state other than ok. */
  detail: string | null;
  protocol: string | null;
  model: string | null;
  serial: string | null;
  firmware: string | null;
  /** `smart_status.passed` (null when not reported). */
  passed: boolean | null;
  temperatureC: number | null;
  powerOnHours: number | null;
  /** Raw values of the watched ATA attributes that the disk reports. */
  ata: Partial<Record<AtaCounterId, number>> | null;
  /** ATA attributes whose normalised value is at or below the vendor threshold now. */
  failingNow: Array<{ id: number; name: string }>;
  nvme: NvmeHealth | null;
}

type Json = Record<string, unknown>;
const obj = (x: unknown): Json | null =>
  x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Json) : null;
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const str = (x: unknown): string | null => (typeof x === 'string' && x.trim() !== '' ? x.trim() : null);

/** smartctl's exit status bits (smartctl(8) "RETURN VALUES"). */
export const EXIT_BITS = {
  commandLine: 1,
  openFailedOrLowPower: 2,
  smartCommandFailed: 4,
  diskFailing: 8,
  prefailBelowThreshold: 16,
} as const;

const STANDBY = /\b(STANDBY|SLEEP|IDLE\w*) mode\b/i;
/** What smartctl says about a device it cannot read SMART from (it exits 1 or 2 for these). */
const NO_SMART =
  /Unable to detect device type|Unknown USB bridge|Please specify device type|SMART support is: Unavailable|device lacks SMART capability|Operation not supported/i;

/** Interprets one `smartctl --json -a -n standby` output (`exitCode` when the JSON lacks it). */
export function parseSmartctl(output: unknown, exitCode: number | null = null): SmartReading {
  const root = obj(output) ?? {};
  const smartctl = obj(root['smartctl']) ?? {};
  const exit = num(smartctl['exit_status']) ?? exitCode ?? 0;
  const messages = (Array.isArray(smartctl['messages']) ? smartctl['messages'] : [])
    .map((m) => str(obj(m)?.['string']))
    .filter((m): m is string => m !== null);
  const device = obj(root['device']);
  const support = obj(root['smart_support']);
  const base: SmartReading = {
    state: 'ok',
    detail: null,
    protocol: str(device?.['protocol']),
    model: str(root['model_name']) ?? str(root['product']),
    serial: str(root['serial_number']),
    firmware: str(root['firmware_version']),
    passed: null,
    temperatureC: null,
    powerOnHours: null,
    ata: null,
    failingNow: [],
    nvme: null,
  };
  const detail = messages.join('; ') || null;
  if (messages.some((m) => STANDBY.test(m))) return { ...base, state: 'standby', detail };
  if (messages.some((m) => NO_SMART.test(m))) return { ...base, state: 'unavailable', detail };
  if (exit & EXIT_BITS.commandLine)
    return { ...base, state: 'error', detail: detail ?? 'smartctl refused its command line' };
  if (exit & EXIT_BITS.openFailedOrLowPower)
    return { ...base, state: 'unavailable', detail: detail ?? 'smartctl could not open the device' };
  if (support && support['available'] === false)
    return { ...base, state: 'unavailable', detail: 'the device does not support SMART' };
  if (support && support['enabled'] === false)
    return {
      ...base,
      state: 'unavailable',
      detail: 'SMART is off on this disk (turn it on with smartctl -s on)',
    };
  const status = obj(root['smart_status']);
  const passed = typeof status?.['passed'] === 'boolean' ? (status['passed'] as boolean) : null;
  const table = obj(root['ata_smart_attributes'])?.['table'];
  const nvmeLog = obj(root['nvme_smart_health_information_log']);
  if (passed === null && !Array.isArray(table) && !nvmeLog)
    return {
      ...base,
      state: 'unavailable',
      detail: detail ?? 'smartctl reported no SMART data for this device',
    };

  let ata: SmartReading['ata'] = null;
  const failingNow: SmartReading['failingNow'] = [];
  if (Array.isArray(table)) {
    ata = {};
    for (const a of table) {
      const row = obj(a);
      const id = num(row?.['id']);
      if (!row || id === null) continue;
      if (ATA_IDS.includes(id as AtaCounterId)) {
        const raw = num(obj(row['raw'])?.['value']);
        if (raw !== null) ata[id as AtaCounterId] = raw;
      }
      if (row['when_failed'] === 'now') failingNow.push({ id, name: str(row['name']) ?? `attribute ${id}` });
    }
  }
  const nvme: NvmeHealth | null = nvmeLog
    ? {
        criticalWarning: num(nvmeLog['critical_warning']) ?? 0,
        mediaErrors: num(nvmeLog['media_errors']) ?? 0,
        availableSpare: num(nvmeLog['available_spare']),
        availableSpareThreshold: num(nvmeLog['available_spare_threshold']),
        percentageUsed: num(nvmeLog['percentage_used']),
      }
    : null;
  return {
    ...base,
    passed,
    temperatureC: num(obj(root['temperature'])?.['current']) ?? num(nvmeLog?.['temperature']),
    powerOnHours: num(obj(root['power_on_time'])?.['hours']),
    ata,
    failingNow,
    nvme,
  };
}

/** One finding of a reading against the thresholds: becomes the condition `smart:<disk>:<id>`. */
export interface SmartFinding {
  id: string;
  eventType: 'smart_warning' | 'smart_failure';
  value: string;
  /** What was found, in a sentence (the disk is named by the caller). */
  what: string;
  todo: string;
}

const NVME_FAILURE_BITS: Array<[number, string]> = [
  [0x01, 'the available spare is below the drive’s own threshold'],
  [0x04, 'the drive reports its reliability as degraded (media or internal errors)'],
  [0x08, 'the drive has put itself in read-only mode'],
  [0x10, 'the volatile memory backup has failed'],
];

const REPLACE =
  'Make sure backups and parity are current, copy off what you cannot lose, and replace the disk (POST /disks/array/replace/plan).';

/** Every finding of an ok reading, failures first. */
export function smartFindings(r: SmartReading, th: SmartThresholds): SmartFinding[] {
  const out: SmartFinding[] = [];
  const nvmeFailures = r.nvme
    ? NVME_FAILURE_BITS.filter(([bit]) => (r.nvme!.criticalWarning & bit) !== 0)
    : [];
  if (r.passed === false || r.failingNow.length > 0 || nvmeFailures.length > 0) {
    const why = [
      ...(r.passed === false ? ['its overall health self-assessment is FAILED'] : []),
      ...r.failingNow.map((a) => `attribute ${a.id} ${a.name} is at or below the vendor's threshold now`),
      ...nvmeFailures.map(([, text]) => text),
    ];
    out.push({
      id: 'failed',
      eventType: 'smart_failure',
      value: 'FAILED',
      what: `SMART reports the disk as failing: ${why.join('; ')}.`,
      todo: `The disk may stop working at any time. ${REPLACE}`,
    });
  }
  if (r.ata) {
    const warn = (id: AtaCounterId, threshold: number, todo: string) => {
      const raw = r.ata?.[id];
      if (raw === undefined || threshold <= 0 || raw < threshold) return;
      const c = ATA_COUNTERS[id];
      out.push({
        id: `ata${id}`,
        eventType: 'smart_warning',
        value: plural(raw, c.unit),
        what: `SMART attribute ${id} (${c.name}) is ${raw} (warning at ${threshold}).`,
        todo,
      });
    };
    const predictor =
      'Backblaze’s drive statistics show that disks with any non-zero count here fail far more often, whatever the vendor threshold says.';
    warn(5, th.reallocatedSectors, `${predictor} The disk has remapped bad sectors. ${REPLACE}`);
    warn(
      187,
      th.reportedUncorrectable,
      `${predictor} Reads failed that the disk could not correct. ${REPLACE}`,
    );
    warn(188, th.commandTimeouts, `${predictor} Check the cable and power too. ${REPLACE}`);
    warn(
      197,
      th.pendingSectors,
      `${predictor} Sectors could not be read and wait to be remapped: run a parity scrub to find damaged files. ${REPLACE}`,
    );
    warn(198, th.offlineUncorrectable, `${predictor} ${REPLACE}`);
    warn(
      199,
      th.crcErrors,
      'CRC errors come from the link, not the platters: reseat or replace the SATA cable. The counter never goes down: once fixed, set the crcErrors threshold above the current count.',
    );
  }
  const isNvme = r.nvme !== null;
  const hot = isNvme ? th.nvmeTemperatureC : th.temperatureC;
  if (r.temperatureC !== null && r.temperatureC >= hot)
    out.push({
      id: 'temperature',
      eventType: 'smart_warning',
      value: `${r.temperatureC} °C`,
      what: `The disk is at ${r.temperatureC} °C (warning at ${hot} °C).`,
      todo: 'Heat shortens a disk’s life: check the fans, the airflow and the dust filters around the disks.',
    });
  if (r.nvme) {
    const n = r.nvme;
    if (th.nvmeMediaErrors > 0 && n.mediaErrors >= th.nvmeMediaErrors)
      out.push({
        id: 'nvme_media_errors',
        eventType: 'smart_warning',
        value: plural(n.mediaErrors, 'media error'),
        what: `The NVMe drive logged ${plural(n.mediaErrors, 'media and data integrity error')} (warning at ${th.nvmeMediaErrors}).`,
        todo: `Data could not be read back intact at least once. ${REPLACE}`,
      });
    if (
      n.availableSpare !== null &&
      n.availableSpare <= th.nvmeAvailableSparePercent &&
      (n.criticalWarning & 0x01) === 0
    )
      out.push({
        id: 'nvme_spare',
        eventType: 'smart_warning',
        value: `${n.availableSpare} % spare`,
        what: `The NVMe drive has ${n.availableSpare} % of its spare blocks left (warning at ${th.nvmeAvailableSparePercent} %, the drive fails at ${n.availableSpareThreshold ?? '?'} %).`,
        todo: 'Plan its replacement.',
      });
    if (n.percentageUsed !== null && n.percentageUsed >= th.nvmePercentageUsed)
      out.push({
        id: 'nvme_wear',
        eventType: 'smart_warning',
        value: `${n.percentageUsed} % used`,
        what: `The NVMe drive has used ${n.percentageUsed} % of its rated endurance (warning at ${th.nvmePercentageUsed} %).`,
        todo: 'Plan its replacement before it wears out.',
      });
    if ((n.criticalWarning & 0x02) !== 0 && !out.some((f) => f.id === 'temperature'))
      out.push({
        id: 'temperature',
        eventType: 'smart_warning',
        value: r.temperatureC === null ? 'over its limit' : `${r.temperatureC} °C`,
        what: 'The NVMe drive reports a temperature over its own limit.',
        todo: 'Check the cooling of the drive (a heatsink, the airflow).',
      });
  }
  return out;
}

/** One disk of the SMART cycle: who it is, and what smartctl said. */
export interface SmartDisk extends DiskLabel {
  /** Stable identity (`wwn:…`, `serial:…`, `device:…`): the conditions' and the history's key. */
  diskKey: string;
  reading: SmartReading;
}

export const SMART_KEY_PREFIX = 'smart:';
export const smartKeyPrefix = (diskKey: string) => `${SMART_KEY_PREFIX}${diskKey}:`;

export function evaluateSmart(disks: readonly SmartDisk[], th: SmartThresholds): Observation {
  const conditions: Condition[] = [];
  const unobserved: string[] = [];
  const notes: Note[] = [];
  for (const d of disks) {
    const label = describeDisk({
      ...d,
      model: d.model ?? d.reading.model,
      serial: d.serial ?? d.reading.serial,
    });
    if (d.reading.state !== 'ok') {
      unobserved.push(smartKeyPrefix(d.diskKey));
      notes.push({
        subject: label,
        message:
          d.reading.state === 'standby'
            ? `in standby: not checked, so as not to wake it (${d.reading.detail ?? 'smartctl -n standby'})`
            : d.reading.state === 'unavailable'
              ? `SMART unavailable: ${d.reading.detail ?? 'no SMART data'}`
              : `SMART could not be read: ${d.reading.detail ?? 'smartctl failed'}`,
      });
      continue;
    }
    for (const f of smartFindings(d.reading, th)) {
      const name =
        d.role && d.roleIndex ? describeDisk({ role: d.role, roleIndex: d.roleIndex }) : (d.device ?? label);
      conditions.push({
        key: `${smartKeyPrefix(d.diskKey)}${f.id}`,
        eventType: f.eventType,
        subject: label,
        value: f.value,
        title:
          f.eventType === 'smart_failure'
            ? `SMART: ${name} is failing`
            : `SMART warning on ${name}: ${f.value}`,
        message: `${label}: ${f.what} ${f.todo}`,
      });
    }
  }
  return { conditions, unobserved, notes };
}

/** The identity a disk's SMART conditions and history are kept under. */
export function smartDiskKey(d: { wwn?: string | null; serial?: string | null; device: string }): string {
  if (d.wwn) return `wwn:${d.wwn}`;
  if (d.serial) return `serial:${d.serial}`;
  return `device:${d.device}`;
}

/** The counters kept in the history (`GET /disks/:id/smart`). */
export function smartCounters(r: SmartReading): Record<string, number> {
  const out: Record<string, number> = {};
  for (const id of ATA_IDS) {
    const v = r.ata?.[id];
    if (v !== undefined) out[ATA_COUNTERS[id].id] = v;
  }
  if (r.nvme) {
    out['nvmeCriticalWarning'] = r.nvme.criticalWarning;
    out['nvmeMediaErrors'] = r.nvme.mediaErrors;
    if (r.nvme.availableSpare !== null) out['nvmeAvailableSpare'] = r.nvme.availableSpare;
    if (r.nvme.percentageUsed !== null) out['nvmePercentageUsed'] = r.nvme.percentageUsed;
  }
  return out;
}

/**
 * Whether a reading goes into the history: when its verdict or a counter changed since the last
 * kept one, or a day after it (so the history shows every change and a daily trend, not one row per
 * hourly cycle).
 */
export function keepInHistory(
  reading: { passed: boolean | null; counters: Record<string, number> },
  last: { passed: boolean | null; counters: Record<string, number>; at: string } | null,
  now: Date,
): boolean {
  if (!last) return true;
  if (last.passed !== reading.passed) return true;
  const keys = new Set([...Object.keys(last.counters), ...Object.keys(reading.counters)]);
  for (const k of keys) if (last.counters[k] !== reading.counters[k]) return true;
  return now.getTime() - Date.parse(last.at) >= 24 * 3600 * 1000;
}
