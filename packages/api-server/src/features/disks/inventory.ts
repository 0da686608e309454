import { findDisk, type DiskInventoryEntry } from '@appliance/common';
import { slotIdentity } from '@appliance/array-planner';
import type { AppContext } from '../../context.ts';
import { listExternals, listSlots } from './store.ts';

/**
 * `GET /disks` (03 §2.6): a fresh inventory, each disk with its slot and external label. A listing:
 * probes of unchanged disks are reused (docs/decisions/performance.md).
 */
export async function listDisks(ctx: AppContext) {
  const inventory = await ctx.inventory.read({ reuseProbes: true });
  const slots = listSlots(ctx.db);
  const externals = listExternals(ctx.db);
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
