/** The mover's settings row (`mover_settings`, absent = the defaults). */
import { DEFAULT_MOVER_SETTINGS, type MoverSettings } from '@appliance/shares';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { moverSettings } from '../../db/schema.ts';

export function readMoverSettings(db: Db): MoverSettings {
  const r = db.select().from(moverSettings).where(eq(moverSettings.id, 1)).get();
  if (!r) return { ...DEFAULT_MOVER_SETTINGS };
  return { enabled: r.enabled === 1, time: r.time, verify: r.verify };
}

export function writeMoverSettings(db: Db, s: MoverSettings, at: string): void {
  const row = { id: 1, enabled: s.enabled ? 1 : 0, time: s.time, verify: s.verify, updatedAt: at };
  db.insert(moverSettings).values(row).onConflictDoUpdate({ target: moverSettings.id, set: row }).run();
}
