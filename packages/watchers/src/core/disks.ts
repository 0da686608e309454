/**
 * `disk_offline` and `array_degraded` from the array slots, the disk inventory and the mount table:
 * an array disk gone from the system or its mount lost is offline; a parity or data disk offline
 * leaves the array without full parity protection.
 */
import { describeDisk, type SlotRole, slotName } from './format.ts';
import type { Condition, Observation } from './model.ts';

/** One array slot with what the inventory and the mount table say about it now. */
export interface SlotFacts {
  role: SlotRole;
  roleIndex: number;
  /** Logical mountpoint (`/mnt/disk1`). */
  mountpoint: string;
  fsUuid: string;
  model: string | null;
  serial: string | null;
  /** The device recorded at setup (`/dev/sdb`). */
  recordedDevice: string;
  /** A data disk leaving the array (`unpooled`, `unlisted`: no longer expected to be there). */
  removalState: string | null;
  /** The disk found in the inventory by its recorded identity (`ambiguous`: several match). */
  match: 'found' | 'missing' | 'ambiguous';
  /** The device it is now, when found. */
  device: string | null;
  /** Something is mounted at the mountpoint. */
  mounted: boolean;
  /**
   * What the mountpoint directory itself holds under the mounted disk (files written there while
   * the disk was not mounted: hidden now, on the system disk): the first names and the count.
   * Absent or null when it is empty or was not looked at.
   */
  hidden?: { count: number; entries: string[] } | null;
}

export const DISK_KEY_PREFIX = 'disk:';
/** The one key of `array_degraded` (shared with the parity jobs that report it: see the README). */
export const ARRAY_DEGRADED_KEY = 'array:degraded';

/** Removal states in which the disk is no longer expected in the array. */
const GONE_ON_PURPOSE = new Set(['unpooled', 'unlisted']);

export function evaluateDisks(slots: readonly SlotFacts[]): Observation {
  const conditions: Condition[] = [];
  const offline: SlotFacts[] = [];
  for (const s of slots) {
    if (s.removalState !== null && GONE_ON_PURPOSE.has(s.removalState)) continue;
    const present = s.match !== 'missing';
    if (s.mounted && s.hidden && s.hidden.count > 0) conditions.push(hiddenCondition(s));
    if (present && s.mounted) continue;
    offline.push(s);
    conditions.push(offlineCondition(s, present));
  }
  const unprotected = offline.filter((s) => s.role !== 'cache');
  if (unprotected.length > 0) conditions.push(degradedCondition(unprotected));
  return { conditions };
}

const label = (s: SlotFacts) =>
  describeDisk({
    role: s.role,
    roleIndex: s.roleIndex,
    mountpoint: s.mountpoint,
    model: s.model,
    serial: s.serial,
    device: s.device ?? s.recordedDevice,
  });

function roleConsequence(s: SlotFacts): string {
  if (s.role === 'parity')
    return 'Parity cannot be updated or used for a rebuild while this disk is offline.';
  if (s.role === 'cache')
    return 'Files on the cache that were not moved to the data disks yet are unreachable, and shares that write to the cache first cannot take new files.';
  return 'Its files are missing from the pool (/mnt/user) until it is back.';
}

function offlineCondition(s: SlotFacts, present: boolean): Condition {
  const name = slotName(s.role, s.roleIndex);
  const what = label(s);
  let value: string;
  let happened: string;
  let todo: string;
  if (!present && s.mounted) {
    value = 'disappeared while mounted';
    happened = `${what} has disappeared from the system while still mounted at ${s.mountpoint}: its files cannot be read or written.`;
    todo = `Check the disk's cable and power and the kernel log (dmesg). If the disk has failed, replace it: the replace plan (POST /disks/array/replace/plan) rebuilds ${s.role === 'cache' ? 'what it can' : 'it from parity'} onto a new disk.`;
  } else if (!present) {
    value = 'not connected';
    happened = `${what} is not connected and nothing is mounted at ${s.mountpoint}.`;
    todo = `Reconnect the disk (model and serial above) and mount it again, or replace it${s.role === 'cache' ? '' : ' (rebuilt from parity)'}.`;
  } else {
    value = 'not mounted';
    happened = `${what} is connected as ${s.device ?? s.recordedDevice} but nothing is mounted at ${s.mountpoint}.`;
    todo = `Mount it again (mount UUID=${s.fsUuid} ${s.mountpoint}, or restart the appliance); if the mount fails, check the filesystem (dmesg).`;
  }
  return {
    key: `${DISK_KEY_PREFIX}${s.mountpoint}`,
    eventType: 'disk_offline',
    subject: what,
    value,
    title: `Array disk ${name} is offline (${value})`,
    message: `${happened} ${roleConsequence(s)} ${todo}`,
  };
}

/** Key of the condition "files hidden under the mounted disk" of a slot. */
export const hiddenKey = (mountpoint: string) => `${DISK_KEY_PREFIX}${mountpoint}:hidden`;

/**
 * A disk mounted over a directory that holds files (issue 32). They were written into the empty
 * mountpoint on the system disk while the disk was not mounted there (through the pool, by an app
 * or by hand); the mount hides them: they are in no share, on no data disk, in no parity. Raised as
 * `disk_offline` (the closed catalog of 04 has no better one): it is what is left of the disk's
 * offline period, and as urgent — the files are lost from sight, and a later replace refuses to
 * mount over them (`mountpoint_not_empty`).
 */
function hiddenCondition(s: SlotFacts): Condition {
  const name = slotName(s.role, s.roleIndex);
  const what = label(s);
  const h = s.hidden!;
  const shown = h.entries.slice(0, 10).join(', ');
  const more =
    h.count > Math.min(10, h.entries.length) ? ` and ${h.count - Math.min(10, h.entries.length)} more` : '';
  return {
    key: hiddenKey(s.mountpoint),
    eventType: 'disk_offline',
    subject: what,
    value: `mounted over ${h.count} hidden ${h.count === 1 ? 'entry' : 'entries'}`,
    title: `Array disk ${name} is mounted over files on the system disk`,
    message: `${what} is mounted over ${h.count} ${h.count === 1 ? 'entry' : 'entries'} in the directory ${s.mountpoint} on the system disk: ${shown}${more}. They were written there while the disk was not mounted and are hidden under it now: not in the pool, not on any array disk, not protected by parity. To get them back: stop what writes to the array, unmount ${s.mountpoint} (or look without unmounting: mkdir /tmp/look && mount --bind ${parentOf(s.mountpoint)} /tmp/look && ls /tmp/look/${baseOf(s.mountpoint)}), move them into the pool (/mnt/user), then mount the disk again or restart the appliance, which makes the emptied directory refuse writes (chattr +i).`,
  };
}

const parentOf = (p: string) => p.slice(0, p.lastIndexOf('/')) || '/';
const baseOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

function degradedCondition(offline: readonly SlotFacts[]): Condition {
  const names = offline.map((s) => slotName(s.role, s.roleIndex));
  const parityOut = offline.some((s) => s.role === 'parity');
  const dataOut = offline.some((s) => s.role === 'data');
  const list = offline.map((s) => `${label(s)} is offline`).join('; ');
  const risk = dataOut
    ? 'The files of the missing data disk can only be rebuilt from parity as long as every other disk stays healthy: one more failure loses data.'
    : 'The data disks have no parity protection while it lasts: a failure of any data disk now loses its files.';
  const todo =
    parityOut && !dataOut
      ? 'Bring the parity disk back or replace it, then run a parity sync.'
      : 'Bring the disk back, or replace it and rebuild it from parity (POST /disks/array/replace/plan); until then, never force a parity sync: it would drop the missing disk’s files from parity.';
  return {
    key: ARRAY_DEGRADED_KEY,
    eventType: 'array_degraded',
    subject: 'the array',
    value: `${names.join(', ')} offline`,
    title: `The array is degraded: ${names.join(', ')} offline`,
    message: `The array runs without full parity protection: ${list}. ${risk} ${todo}`,
  };
}
