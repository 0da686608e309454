import {
  checkNoArray,
  readArray,
  setupArray as runArraySetup,
  toAppError,
  withMounted,
} from '@appliance/array-planner';
import { conflict, notFound } from '@appliance/common';
import { eq } from 'drizzle-orm';
import type * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import { arrayDisks } from '../../db/schema.ts';
import { diskJobPorts } from './deps.ts';
import type { Actor } from '../../services/audit.ts';
import type { ArraySetupBody, RemovalStateBody } from './schemas.ts';
import { listSlots, readSettings, recordArray, rowToSlot } from './store.ts';

/** `GET /disks/array` (08 §9.2). */
export async function getArray(ctx: AppContext) {
  const settings = readSettings(ctx.db);
  return readArray(
    diskJobPorts(ctx),
    settings && { createPolicy: settings.createPolicy, migrationPending: settings.migrationPending === 1 },
  );
}

/** `POST /disks/array` (08 §9.3): the package's setup under the `array` hold; the rows recorded here. */
export async function setupArray(
  ctx: AppContext,
  actor: Actor | null,
  body: v.InferOutput<typeof ArraySetupBody>,
) {
  const exists = checkNoArray(listSlots(ctx.db));
  if (exists) throw toAppError(exists);
  const release = ctx.jobs.hold(['array'], { type: 'array.create', target: '/mnt/user' });
  try {
    await runArraySetup(
      {
        ...diskJobPorts(ctx),
        recordArray: (setup) => recordArray(ctx, actor, setup),
        progress: () => ctx.events.progress(ctx.random.uuid(), 'array.create', '/mnt/user'),
      },
      body,
    );
    return await getArray(ctx);
  } finally {
    release();
  }
}

/** `PUT /disks/array/removal-state` (08 §9.4): records the state only. */
export async function setRemovalState(
  ctx: AppContext,
  actor: Actor | null,
  body: v.InferOutput<typeof RemovalStateBody>,
) {
  const updated = await ctx.writes.run((db) => {
    const row = db.select().from(arrayDisks).where(eq(arrayDisks.mountpoint, body.mountpoint)).get();
    if (!row)
      throw notFound('disk_slot_not_found', `no array disk at "${body.mountpoint}"`, {
        mountpoint: body.mountpoint,
      });
    if (row.role !== 'data') {
      throw conflict(
        'not_a_data_disk',
        `${body.mountpoint} is a ${row.role} disk; only data disks can leave the array this way.`,
        {
          mountpoint: body.mountpoint,
          role: row.role,
        },
      );
    }
    if (body.removalState !== null) {
      const other = db
        .select()
        .from(arrayDisks)
        .all()
        .find((r) => r.id !== row.id && r.removalState !== null);
      if (other) {
        throw conflict(
          'removal_in_progress',
          `${other.mountpoint} is already leaving the array (${other.removalState}): finish or cancel that removal first.`,
          {
            mountpoint: other.mountpoint,
            removalState: other.removalState,
          },
        );
      }
    }
    db.update(arrayDisks).set({ removalState: body.removalState }).where(eq(arrayDisks.id, row.id)).run();
    ctx.audit.record(db, actor, {
      operation: 'array.removal_state',
      target: body.mountpoint,
      details: { from: row.removalState, to: body.removalState },
    });
    return rowToSlot({ ...row, removalState: body.removalState });
  });
  return (await withMounted(diskJobPorts(ctx), [updated]))[0]!;
}
