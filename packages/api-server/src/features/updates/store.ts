/** The `system_updates` row: the last apt check and the scheduled reboot. */
import type { UpdatesState, UpgradablePackage } from '@appliance/updates';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { systemUpdates } from '../../db/schema.ts';

export function readUpdatesState(db: Db): UpdatesState {
  const row = db.select().from(systemUpdates).where(eq(systemUpdates.id, 1)).get();
  return {
    checkedAt: row?.checkedAt ?? null,
    upgradable: row ? (JSON.parse(row.upgradable) as UpgradablePackage[]) : [],
    checkError: row?.checkError ?? null,
    rebootAt: row?.rebootAt ?? null,
    rebootBy: row?.rebootBy ?? null,
  };
}

/** Writes part of the row (created with the defaults when absent). */
export function writeUpdatesState(db: Db, patch: Partial<UpdatesState>): void {
  const { upgradable, ...rest } = patch;
  const values = { ...rest, ...(upgradable ? { upgradable: JSON.stringify(upgradable) } : {}) };
  db.insert(systemUpdates)
    .values({ id: 1, ...values })
    .onConflictDoUpdate({ target: systemUpdates.id, set: values })
    .run();
}
