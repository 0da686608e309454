import {
  type ArraySlotIdentity,
  type ExternalDiskRow,
  type ExternalDiskStore,
  type FormatRecord,
  type FormatStart,
  filesystemRegistered,
  labelTaken,
  type NewExternalDiskRow,
} from '@appliance/external-disk';
import { AppError } from '@appliance/common';
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { arrayDisks, externalDisks } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';

type Row = typeof externalDisks.$inferSelect;

const toRow = (r: Row): ExternalDiskRow => ({
  id: r.id,
  label: r.label,
  device: r.device,
  filesystem: r.filesystem,
  fsUuid: r.fsUuid,
  wwn: r.wwn,
  serial: r.serial,
  byIdName: r.byIdName,
  weakIdentity: r.weakIdentity === 1,
  sizeBytes: r.sizeBytes,
  backupDestination: r.backupDestination === 1,
  createdAt: r.createdAt,
  formattedAt: r.formattedAt,
});

/** The `external_disks` / `array_disks` side of the external-disk operations (07 §2.1, §6.6). */
export function createExternalDiskStore(ctx: AppContext, actor: Actor | null): ExternalDiskStore {
  return {
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
    insertRegistration(row: NewExternalDiskRow, at: string) {
      return ctx.writes.run((db) => {
        assertLabelFree(db, row.label, null);
        assertUuidFree(db, row.fsUuid, null);
        const inserted = db
          .insert(externalDisks)
          .values({
            ...columns(row),
            label: row.label,
            backupDestination: row.backupDestination ? 1 : 0,
            createdAt: at,
          })
          .returning()
          .get();
        ctx.audit.record(db, actor, {
          operation: 'disks.external.register',
          target: row.label,
          details: { device: row.device, backupDestination: row.backupDestination },
        });
        return toRow(inserted);
      });
    },
    recordFormatStart(start: FormatStart) {
      // No audit row: the attempt's one audit row comes with recordFormat (07 §6.6).
      return ctx.writes.run((db) => {
        assertLabelFree(db, start.label, start.rowId);
        const values = columns({ ...start.columns, filesystem: null, fsUuid: null });
        const stored =
          start.rowId === null
            ? db
                .insert(externalDisks)
                .values({ ...values, label: start.label, backupDestination: 0, createdAt: start.at })
                .returning({ id: externalDisks.id })
                .get()
            : db
                .update(externalDisks)
                .set(values)
                .where(eq(externalDisks.id, start.rowId))
                .returning({ id: externalDisks.id })
                .get();
        if (!stored)
          throw new AppError(500, 'internal', 'The external disk row disappeared during the format.');
        return stored.id;
      });
    },
    recordFormat(record: FormatRecord) {
      return ctx.writes.run((db) => {
        assertLabelFree(db, record.label, record.rowId);
        // A fresh filesystem UUID cannot belong to another row; if it somehow does, the old row
        // loses it (it names a filesystem that no longer exists anywhere else).
        if (record.columns.fsUuid !== null) {
          db.update(externalDisks)
            .set({ fsUuid: null })
            .where(
              sql`${externalDisks.fsUuid} = ${record.columns.fsUuid} and ${externalDisks.id} is not ${record.rowId}`,
            )
            .run();
        }
        const values = { ...columns(record.columns), formattedAt: record.formattedAt };
        const stored =
          record.rowId === null
            ? db
                .insert(externalDisks)
                .values({ ...values, label: record.label, backupDestination: 0, createdAt: record.audit.at })
                .returning()
                .get()
            : db
                .update(externalDisks)
                .set(values)
                .where(eq(externalDisks.id, record.rowId))
                .returning()
                .get();
        if (!stored)
          throw new AppError(500, 'internal', 'The external disk row disappeared during the format.');
        ctx.audit.record(db, actor, {
          operation: 'disks.external.format',
          target: record.label,
          outcome: record.audit.outcome,
          details: record.audit.details,
        });
        return toRow(stored);
      });
    },
  };
}

function columns(c: FormatRecord['columns']) {
  return {
    device: c.device,
    filesystem: c.filesystem,
    fsUuid: c.fsUuid,
    wwn: c.wwn,
    serial: c.serial,
    byIdName: c.byIdName,
    weakIdentity: c.weakIdentity ? 1 : 0,
    sizeBytes: c.sizeBytes,
  };
}

/** Labels are unique case-insensitively; re-checked inside the write job (another request may have won). */
function assertLabelFree(db: Db, label: string, selfId: number | null): void {
  const taken = db
    .select({ id: externalDisks.id, label: externalDisks.label })
    .from(externalDisks)
    .where(sql`${externalDisks.label} = ${label} collate nocase`)
    .get();
  if (taken && taken.id !== selfId) throw labelTaken(taken.label);
}

function assertUuidFree(db: Db, fsUuid: string | null, selfId: number | null): void {
  if (fsUuid === null) return;
  const taken = db.select().from(externalDisks).where(eq(externalDisks.fsUuid, fsUuid)).get();
  if (taken && taken.id !== selfId) throw filesystemRegistered(taken.label);
}
