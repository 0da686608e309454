/** The database side of the disk routes: `array_disks`, `array_settings`, `external_disks`. */
import {
  type ArrayRecords,
  type ArraySettings,
  type ArraySlot,
  type ExternalDiskRecord,
  inSlotOrder,
  type SlotStore,
} from '@appliance/array-planner';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { diskIdentityColumns, diskIdentityOf } from '../../db/disk-identity.ts';
import type { Db } from '../../db/open.ts';
import type { Actor } from '../../services/audit.ts';
import { arrayDisks, arraySettings, externalDisks } from '../../db/schema.ts';

type SlotRow = typeof arrayDisks.$inferSelect;

const rowToSlot = (r: SlotRow): ArraySlot => ({
  id: r.id,
  role: r.role,
  roleIndex: r.roleIndex,
  ...diskIdentityOf(r),
  mountpoint: r.mountpoint,
  removalState: r.removalState,
});

/** Every slot, ordered parity, data, cache, then by role index (08 §9.2). */
export function listSlots(db: Db): ArraySlot[] {
  return inSlotOrder(db.select().from(arrayDisks).all().map(rowToSlot));
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

/**
 * The array's rows as @appliance/array-planner's `SlotStore` port: reads from the database, the
 * switch of a disk job in one transaction with its audit row.
 */
export function slotStore(ctx: Pick<AppContext, 'db' | 'writes' | 'audit'>): SlotStore {
  return {
    listSlots: () => listSlots(ctx.db),
    listExternals: () => listExternals(ctx.db),
    readSettings: () => readSettings(ctx.db),
    recordSwitch: ({ slotId, next, target, details }) =>
      ctx.writes.run((db) => {
        db.update(arrayDisks)
          .set({ ...diskIdentityColumns(next), mountpoint: next.mountpoint })
          .where(eq(arrayDisks.id, slotId))
          .run();
        ctx.audit.record(db, null, { operation: 'disks.array.switch', target, details });
      }),
  };
}

/**
 * The array's records as @appliance/array-planner's `ArrayRecords` port: each transaction runs in
 * ONE write job with its audit row (the decisions are the package's `operations/array-records.ts`).
 */
export function arrayRecords(ctx: Pick<AppContext, 'db' | 'writes' | 'audit'>): ArrayRecords<Actor> {
  return {
    settings: () => toSettings(readSettings(ctx.db)),
    transaction: (fn) =>
      ctx.writes.run((db) =>
        fn({
          slots: () => listSlots(db),
          settings: () => toSettings(readSettings(db)),
          insertArray: (members, createPolicy, createdAt) => {
            for (const m of members) {
              db.insert(arrayDisks)
                .values({
                  role: m.role,
                  roleIndex: m.roleIndex,
                  device: m.device,
                  filesystem: m.filesystem,
                  fsUuid: m.fsUuid,
                  wwn: m.entry.wwn,
                  serial: m.entry.serial,
                  byIdName: m.entry.byIdName,
                  weakIdentity: m.entry.weakIdentity ? 1 : 0,
                  sizeBytes: m.entry.sizeBytes,
                  mountpoint: m.mountpoint,
                  removalState: null,
                })
                .run();
            }
            db.insert(arraySettings)
              .values({ id: 1, createPolicy, migrationPending: 0, migrationPendingSince: null, createdAt })
              .run();
          },
          setRemovalState: (slotId, removalState) =>
            db.update(arrayDisks).set({ removalState }).where(eq(arrayDisks.id, slotId)).run(),
          setMigration: (pending, since) =>
            db
              .update(arraySettings)
              .set({ migrationPending: pending ? 1 : 0, migrationPendingSince: since })
              .run(),
          audit: (actor, entry) => ctx.audit.record(db, actor, entry),
        }),
      ),
  };
}

const toSettings = (s: ReturnType<typeof readSettings>): ArraySettings | null =>
  s && {
    createPolicy: s.createPolicy,
    migrationPending: s.migrationPending === 1,
    migrationPendingSince: s.migrationPendingSince,
    createdAt: s.createdAt,
  };
