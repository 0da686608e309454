/** The database reads of share data delete: the share row and the array (settings and slots). */
import type { DataDeleteArray, DataDeleteShare } from '@appliance/shares';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { arrayDisks, arraySettings, shares } from '../../db/schema.ts';

/** The share with exactly this name (case-sensitive), or null. */
export function loadShare(db: Db, name: string): DataDeleteShare | null {
  const row = db
    .select({ name: shares.name, cacheMode: shares.cacheMode })
    .from(shares)
    .where(eq(shares.name, name))
    .get();
  return row ?? null;
}

/** `array_settings` and every `array_disks` row, or null while no array is configured. */
export function loadArray(db: Db): DataDeleteArray | null {
  const settings = db.select().from(arraySettings).get();
  if (!settings) return null;
  const slots = db
    .select({
      role: arrayDisks.role,
      roleIndex: arrayDisks.roleIndex,
      mountpoint: arrayDisks.mountpoint,
      fsUuid: arrayDisks.fsUuid,
      removalState: arrayDisks.removalState,
    })
    .from(arrayDisks)
    .all();
  return { migrationPending: settings.migrationPending === 1, slots };
}
