/** The array slots with what the inventory and the mount table say about them now. */
import { findDisk, type DiskInventory } from '@appliance/common';
import type { SlotFacts } from '@appliance/watchers';
import { readMountTable, mountAt } from '@appliance/watchers';
import type { ArraySlot } from '@appliance/array-planner';
import type { AppContext } from '../../context.ts';
import { listSlots } from '../disks/store.ts';

/**
 * The model of a disk from its `/dev/disk/by-id` name when the inventory cannot say (the disk is
 * gone): `ata-WDC_WD140EDFZ-11A0VA0_9RK1XXXX` → `WDC WD140EDFZ-11A0VA0`.
 */
export function modelFromById(byIdName: string | null, serial: string | null): string | null {
  if (!byIdName) return null;
  let name = byIdName.replace(/^(ata|nvme|scsi|usb|sas|wwn)-/, '');
  if (serial && name.endsWith(`_${serial}`)) name = name.slice(0, -serial.length - 1);
  else return null;
  const model = name.replace(/_/g, ' ').trim();
  return model === '' ? null : model;
}

export interface Observed {
  slots: ArraySlot[];
  facts: SlotFacts[];
  inventory: DiskInventory | null;
}

/** Remembered models of slots seen present (a disk that vanishes is still named by its model). */
const lastModels = new WeakMap<AppContext, Map<string, string>>();

export async function observeSlots(ctx: AppContext): Promise<Observed> {
  const slots = listSlots(ctx.db);
  if (slots.length === 0) return { slots, facts: [], inventory: null };
  const [inventory, mounts] = await Promise.all([ctx.inventory.read(), readMountTable(ctx.paths.procDir)]);
  const models = lastModels.get(ctx) ?? new Map<string, string>();
  lastModels.set(ctx, models);
  const facts = slots.map((s): SlotFacts => {
    const m = findDisk(
      {
        wwn: s.wwn,
        serial: s.serial,
        weakIdentity: s.weakIdentity,
        fsUuid: s.fsUuid,
        sizeBytes: s.sizeBytes,
      },
      inventory,
    );
    const disk = m.status === 'found' ? m.disk : null;
    if (disk?.model) models.set(s.mountpoint, disk.model);
    return {
      role: s.role,
      roleIndex: s.roleIndex,
      mountpoint: s.mountpoint,
      fsUuid: s.fsUuid,
      model: disk?.model ?? models.get(s.mountpoint) ?? modelFromById(s.byIdName, s.serial),
      serial: s.serial,
      recordedDevice: s.device,
      removalState: s.removalState,
      match: m.status,
      device: disk?.device ?? null,
      mounted: mountAt(mounts, ctx.paths.real(s.mountpoint)) !== null,
    };
  });
  return { slots, facts, inventory };
}
