/** How watchers name things and values in their messages (pure). */

export type SlotRole = 'data' | 'parity' | 'cache';

/** A disk as messages name it: its slot, where it is mounted, and what it is. */
export interface DiskLabel {
  role?: SlotRole | null;
  roleIndex?: number | null;
  mountpoint?: string | null;
  device?: string | null;
  model?: string | null;
  serial?: string | null;
}

/** `disk1`, `parity2`, `cache` (the mkfs label array setup gives each slot). */
export function slotName(role: SlotRole, roleIndex: number): string {
  return role === 'cache' ? 'cache' : role === 'data' ? `disk${roleIndex}` : `parity${roleIndex}`;
}

/**
 * `disk1 (/mnt/disk1, WDC WD140EDFZ-11A0VA0 serial 9RK1XXXX, /dev/sdb)`: the slot first (what the
 * admin thinks in), then model and serial (what is printed on the label of the disk to pull), then
 * the device node. Parts that are unknown are left out.
 */
export function describeDisk(d: DiskLabel): string {
  const slot = d.role && d.roleIndex ? slotName(d.role, d.roleIndex) : null;
  const what = [d.model, d.serial ? `serial ${d.serial}` : null].filter(Boolean).join(' ');
  const parts = [d.mountpoint, what || null, d.device].filter((p): p is string => !!p);
  const head = slot ?? d.device ?? d.mountpoint ?? 'a disk';
  const rest = parts.filter((p) => p !== head);
  return rest.length > 0 ? `${head} (${rest.join(', ')})` : head;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** IEC sizes with one decimal below 10 (`3.4 GiB`, `812 MiB`). */
export function formatBytes(bytes: number): string {
  let n = Math.max(0, bytes);
  let u = 0;
  while (n >= 1024 && u < UNITS.length - 1) {
    n /= 1024;
    u++;
  }
  const text = u === 0 ? String(Math.round(n)) : n < 10 ? n.toFixed(1) : String(Math.round(n));
  return `${text} ${UNITS[u]}`;
}

/** A percentage as shown: whole numbers, `99.6` → `99 %` (never rounds up to a full disk). */
export function formatPercent(p: number): string {
  return `${Math.floor(p)} %`;
}

/** `1 sector`, `8 sectors`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
