import {
  type ArraySlotIdentity,
  type ExternalDiskRow,
  type ExternalDiskStore,
  externalDiskStore,
} from '@appliance/external-disk';
import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { diskIdentityColumns, diskIdentityOf } from '../../db/disk-identity.ts';
import type { Db } from '../../db/open.ts';
import { arrayDisks, externalDisks } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

type Row = typeof externalDisks.$inferSelect;

const toRow = (r: Row): ExternalDiskRow => ({
  id: r.id,
  label: r.label,
  ...diskIdentityOf(r),
  backupDestination: r.backupDestination === 1,
  createdAt: r.createdAt,
  formattedAt: r.formattedAt,
});

const found = (r: Row | undefined) => (r ? toRow(r) : undefined);

/**
 * The `external_disks` / `array_disks` side of the external-disk operations (07 §2.1, §6.6): plain
 * queries, each write one write job with its audit row; the uniqueness rules are the package's.
 */
export function createExternalDiskStore(ctx: AppContext, actor: Actor | null): ExternalDiskStore {
  return externalDiskStore({
    async listRows() {
      return ctx.db.select().from(externalDisks).all().map(toRow);
    },
    async listArraySlots(): Promise<ArraySlotIdentity[]> {
      return ctx.db
        .select()
        .from(arrayDisks)
        .all()
        .map((r) => ({
          mountpoint: r.mountpoint,
          wwn: r.wwn,
          serial: r.serial,
          weakIdentity: r.weakIdentity === 1,
          fsUuid: r.fsUuid,
          sizeBytes: r.sizeBytes,
        }));
    },
    write: (fn) =>
      ctx.writes.run((db: Db) =>
        fn({
          byLabel: (label) =>
            found(
              db
                .select()
                .from(externalDisks)
                .where(sql`${externalDisks.label} = ${label} collate nocase`)
                .get(),
            ),
          byFsUuid: (fsUuid) =>
            found(db.select().from(externalDisks).where(eq(externalDisks.fsUuid, fsUuid)).get()),
          insert: (row) =>
            toRow(
              db
                .insert(externalDisks)
                .values({
                  ...diskIdentityColumns(row),
                  label: row.label,
                  backupDestination: row.backupDestination ? 1 : 0,
                  createdAt: row.createdAt,
                  ...(row.formattedAt !== undefined ? { formattedAt: row.formattedAt } : {}),
                })
                .returning()
                .get(),
            ),
          update: (id, values) =>
            found(
              db
                .update(externalDisks)
                .set({
                  ...diskIdentityColumns(values),
                  ...(values.formattedAt !== undefined ? { formattedAt: values.formattedAt } : {}),
                })
                .where(eq(externalDisks.id, id))
                .returning()
                .get(),
            ),
          clearFsUuid: (fsUuid, exceptId) =>
            db
              .update(externalDisks)
              .set({ fsUuid: null })
              .where(and(eq(externalDisks.fsUuid, fsUuid), sql`${externalDisks.id} is not ${exceptId}`))
              .run(),
          audit: (entry) => ctx.audit.record(db, actor, entry),
        }),
      ),
  });
}
