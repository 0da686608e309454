/** The array slots with what the inventory and the mount table say about them now. */
import { findDisk, type DiskInventory } from '@appliance/common';
import type { SlotFacts } from '../core/disks.ts';
import { mountAt, readMountTable } from '../node/mounts.ts';
import type { WatchedSlot, WatcherFactsPorts } from './ports.ts';

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

/** A slot's recorded identity, as `findDisk` matches it against the inventory. */
export const slotIdentity = (s: WatchedSlot) => ({
  wwn: s.wwn,
  serial: s.serial,
  weakIdentity: s.weakIdentity,
  fsUuid: s.fsUuid,
  sizeBytes: s.sizeBytes,
});

export interface Observed {
  slots: readonly WatchedSlot[];
  facts: SlotFacts[];
  inventory: DiskInventory | null;
}

type SlotPorts = Pick<WatcherFactsPorts, 'slots' | 'inventory' | 'paths'>;

/**
 * Reads the slots' facts. `models` remembers the model of each slot seen present (a disk that
 * vanishes is still named by its model): one map per watcher.
 */
export async function observeSlots(ports: SlotPorts, models: Map<string, string>): Promise<Observed> {
  const slots = ports.slots();
  if (slots.length === 0) return { slots, facts: [], inventory: null };
  const [inventory, mounts] = await Promise.all([
    ports.inventory.read(),
    readMountTable(ports.paths.procDir),
  ]);
  const facts = slots.map((s): SlotFacts => {
    const m = findDisk(slotIdentity(s), inventory);
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
      mounted: mountAt(mounts, ports.paths.real(s.mountpoint)) !== null,
    };
  });
  return { slots, facts, inventory };
}
