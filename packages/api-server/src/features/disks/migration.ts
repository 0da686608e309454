import { conflict } from '@appliance/common';
import type { AppContext } from '../../context.ts';
import { arraySettings } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import { readSettings } from './store.ts';

/** `GET /migration` (08 §10). */
export function getMigration(ctx: AppContext) {
  const s = readSettings(ctx.db);
  return {
    pending: s?.migrationPending === 1,
    since: s?.migrationPending === 1 ? s.migrationPendingSince : null,
  };
}

/** `POST /migration/pending` (08 §10): `true` needs an array; the first `since` is kept while pending. */
export async function setMigrationPending(ctx: AppContext, actor: Actor | null, pending: boolean) {
  return ctx.writes.run((db) => {
    const s = db.select().from(arraySettings).get();
    if (!s) {
      if (pending)
        throw conflict('no_array', 'No array is set up yet: a migration can only be pending on an array.');
      return { pending: false, since: null };
    }
    const since = pending
      ? s.migrationPending === 1
        ? s.migrationPendingSince
        : ctx.clock.now().toISOString()
      : null;
    db.update(arraySettings)
      .set({ migrationPending: pending ? 1 : 0, migrationPendingSince: since })
      .run();
    ctx.audit.record(db, actor, { operation: 'migration.pending', target: 'array', details: { pending } });
    return { pending, since };
  });
}
