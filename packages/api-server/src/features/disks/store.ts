/** The database side of the disk routes: `array_disks`, `array_settings`, `external_disks`. */
import type { ArraySlot, ExternalDiskRecord } from '@appliance/array-planner';
import type { Db } from '../../db/open.ts';
import { arrayDisks, arraySettings, externalDisks } from '../../db/schema.ts';

type SlotRow = typeof arrayDisks.$inferSelect;

export const rowToSlot = (r: SlotRow): ArraySlot => ({
  id: r.id,
  role: r.role,
  roleIndex: r.roleIndex,
  device: r.device,
  filesystem: r.filesystem,
  fsUuid: r.fsUuid,
  wwn: r.wwn,
  serial: r.serial,
  byIdName: r.byIdName,
  weakIdentity: r.weakIdentity === 1,
  sizeBytes: r.sizeBytes,
  mountpoint: r.mountpoint,
  removalState: r.removalState,
});

const ROLE_ORDER = { parity: 0, data: 1, cache: 2 } as const;

/** Every slot, ordered parity, data, cache, then by role index (08 §9.2). */
export function listSlots(db: Db): ArraySlot[] {
  return db
    .select()
    .from(arrayDisks)
    .all()
    .map(rowToSlot)
    .sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.roleIndex - b.roleIndex);
}

export function listExternals(db: Db): (ExternalDiskRecord & { device: string })[] {
  return db
    .select()
    .from(externalDisks)
    .all()
    .map((r) => ({
      label: r.label,
      device: r.device,
      fsUuid: r.fsUuid,
      wwn: r.wwn,
      serial: r.serial,
      weakIdentity: r.weakIdentity === 1,
      sizeBytes: r.sizeBytes,
    }));
}

export function readSettings(db: Db) {
  return db.select().from(arraySettings).get() ?? null;
}
