/** The database side of the disk routes: `array_disks`, `array_settings`, `external_disks`. */
import type {
  ArraySetupPlan,
  ArraySetupResult,
  ArraySlot,
  ExternalDiskRecord,
  SlotStore,
} from '@appliance/array-planner';
import { conflict } from '@appliance/common';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import type { Actor } from '../../services/audit.ts';
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
          .set({
            device: next.device,
            filesystem: next.filesystem,
            fsUuid: next.fsUuid,
            wwn: next.wwn,
            serial: next.serial,
            byIdName: next.byIdName,
            weakIdentity: next.weakIdentity ? 1 : 0,
            sizeBytes: next.sizeBytes,
            mountpoint: next.mountpoint,
          })
          .where(eq(arrayDisks.id, slotId))
          .run();
        ctx.audit.record(db, null, { operation: 'disks.array.switch', target, details });
      }),
  };
}

/** Records a set-up array (08 §9.3): its rows, its settings and the audit row, in ONE transaction. */
export function recordArray(
  ctx: Pick<AppContext, 'writes' | 'audit' | 'clock'>,
  actor: Actor | null,
  { plan, result }: { plan: ArraySetupPlan; result: ArraySetupResult },
): Promise<void> {
  return ctx.writes.run((db) => {
    if (db.select().from(arrayDisks).all().length > 0)
      throw conflict('array_exists', 'An array is already set up.');
    for (const m of result.members) {
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
      .values({
        id: 1,
        createPolicy: plan.createPolicy,
        migrationPending: 0,
        migrationPendingSince: null,
        createdAt: ctx.clock.now().toISOString(),
      })
      .run();
    ctx.audit.record(db, actor, {
      operation: 'array.create',
      target: '/mnt/user',
      details: {
        createPolicy: plan.createPolicy,
        disks: result.members.map((m) => ({
          device: m.device,
          role: m.role,
          mountpoint: m.mountpoint,
          filesystem: m.filesystem,
        })),
        poolMounted: result.poolMounted,
        mountUnits: result.mountUnits
          ? { units: result.mountUnits.units, enabled: result.mountUnits.enabled }
          : null,
      },
    });
  });
}
