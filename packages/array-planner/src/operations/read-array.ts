/**
 * The array and the disks as the API shows them (read-only): the slots with their disks found
 * again in a fresh inventory, and the inventory with each disk's slot and external label.
 */
import { type DiskInventoryEntry, findDisk } from '@appliance/common';
import { findSlotDisk, slotIdentity } from '../core/slots.ts';
import type { ArraySlot } from '../core/types.ts';
import { isMountedAt, isPoolMounted } from '../node/pool-state.ts';
import type { DiskJobPorts } from '../ports.ts';

export type ReadPorts = Pick<DiskJobPorts, 'paths' | 'inventory' | 'slots' | 'log'>;

/**
 * Slots as the API shows them: the row plus whether something is mounted at its mountpoint, with
 * `device` the disk's kernel path **now**, found by the slot's identity (filesystem UUID, WWN,
 * serial) in a fresh inventory exactly as the disk list finds it, or null when the disk is not
 * attached, matches twice, or the inventory cannot be read. The row's `device` is only the path
 * last recorded: after a reboot or a re-attach the kernel may give that name to another disk, and
 * a user reading it would pull or wipe the wrong one (issue 32).
 */
export async function withMounted(ports: ReadPorts, slots: ArraySlot[]) {
  const inventory = slots.length
    ? await ports.inventory.read({ reuseProbes: true }).catch((err: unknown) => {
        ports.log.warn('array slots shown without devices: the disk inventory could not be read', {
          error: err instanceof Error ? err.message : String(err),
        });
        return null;
      })
    : null;
  return Promise.all(
    slots.map(async (s) => {
      const found = inventory ? findSlotDisk(s, inventory) : null;
      return {
        ...s,
        device: found?.status === 'found' ? found.disk.device : null,
        mounted: await isMountedAt(ports.paths, s.mountpoint),
      };
    }),
  );
}

/** The array (08 §9.2): its slots, create policy, pool and migration state; or `configured: false`. */
export async function readArray(
  ports: ReadPorts,
  settings: { createPolicy: string; migrationPending: boolean } | null,
) {
  if (!settings) return { configured: false, disks: [] };
  return {
    configured: true,
    createPolicy: settings.createPolicy,
    poolMounted: await isPoolMounted(ports.paths),
    migrationPending: settings.migrationPending,
    disks: await withMounted(ports, ports.slots.listSlots()),
  };
}

/**
 * The disk list (03 §2.6): a fresh inventory, each disk with its slot and external label. A
 * listing: probes of unchanged disks are reused (docs/decisions/performance.md).
 */
export async function listDisks(ports: Pick<DiskJobPorts, 'inventory' | 'slots'>) {
  const inventory = await ports.inventory.read({ reuseProbes: true });
  const slots = ports.slots.listSlots();
  const externals = ports.slots.listExternals();
  const slotOf = new Map<string, string>();
  for (const s of slots) {
    const m = findDisk(slotIdentity(s), inventory);
    if (m.status === 'found') slotOf.set(m.disk.device, s.mountpoint);
  }
  const labelOf = new Map<string, string>();
  for (const e of externals) {
    const m = findDisk(e, inventory);
    if (m.status === 'found') labelOf.set(m.disk.device, e.label);
  }
  return {
    labMode: inventory.labMode,
    bootResolved: inventory.bootResolved,
    disks: inventory.disks.map((d) => ({
      ...publicEntry(d),
      arrayMountpoint: slotOf.get(d.device) ?? null,
      externalLabel: labelOf.get(d.device) ?? null,
    })),
  };
}

/** The entry without the internal `lab` marker. */
function publicEntry(d: DiskInventoryEntry): Omit<DiskInventoryEntry, 'lab'> {
  const { lab: _lab, ...rest } = d;
  return rest;
}
