import {
  type ArraySetupPlan,
  type ArraySlot,
  checkNoArray,
  checkSetupTools,
  executeArraySetup,
  findSlotDisk,
  isMountedAt,
  isPoolMounted,
  planArraySetup,
  removeMountUnits,
  toAppError,
  undoMounts,
} from '@appliance/array-planner';
import { AppError, conflict, notFound, diskLockKey } from '@appliance/common';
import { eq } from 'drizzle-orm';
import type * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import { arrayDisks, arraySettings } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import type { ArraySetupBody, RemovalStateBody } from './schemas.ts';
import { listExternals, listSlots, readSettings, rowToSlot } from './store.ts';

/**
 * A slot as the API shows it: the row plus whether something is mounted at its mountpoint, with
 * `device` the disk's kernel path **now**, found by the slot's identity (filesystem UUID, WWN,
 * serial) in a fresh inventory exactly as `GET /disks` finds it, or null when the disk is not
 * attached, matches twice, or the inventory cannot be read. The row's `device` is only the path
 * last recorded: after a reboot or a re-attach the kernel may give that name to another disk, and
 * a user reading it would pull or wipe the wrong one (issue 32).
 */
async function withMounted(ctx: AppContext, slots: ArraySlot[]) {
  const inventory = slots.length
    ? await ctx.inventory.read({ reuseProbes: true }).catch((err: unknown) => {
        ctx.logger.warn('array slots shown without devices: the disk inventory could not be read', {
          error: err instanceof Error ? err.message : String(err),
        });
        return null;
      })
    : null;
  return Promise.all(
    slots.map(async (s) => {
      const found = inventory ? findSlotDisk(s, inventory) : null;
      return {
        ...s,
        device: found?.status === 'found' ? found.disk.device : null,
        mounted: await isMountedAt(ctx.paths, s.mountpoint),
      };
    }),
  );
}

/** `GET /disks/array` (08 §9.2). */
export async function getArray(ctx: AppContext) {
  const settings = readSettings(ctx.db);
  if (!settings) return { configured: false, disks: [] };
  return {
    configured: true,
    createPolicy: settings.createPolicy,
    poolMounted: await isPoolMounted(ctx.paths),
    migrationPending: settings.migrationPending === 1,
    disks: await withMounted(ctx, listSlots(ctx.db)),
  };
}

/** The pure checks of 08 §9.3 steps 3–6 over a fresh inventory and the current rows. */
async function checkSetup(
  ctx: AppContext,
  body: v.InferOutput<typeof ArraySetupBody>,
): Promise<ArraySetupPlan> {
  const inventory = await ctx.inventory.read();
  const result = planArraySetup({
    request: body,
    rows: listSlots(ctx.db),
    inventory,
    externals: listExternals(ctx.db),
  });
  if (result.refusal) throw toAppError(result.refusal);
  return result.plan;
}

/** `POST /disks/array` (08 §9.3): checks in order, per-disk locks, format + mount, one transaction. */
export async function setupArray(
  ctx: AppContext,
  actor: Actor | null,
  body: v.InferOutput<typeof ArraySetupBody>,
) {
  const exists = checkNoArray(listSlots(ctx.db));
  if (exists) throw toAppError(exists);
  const release = ctx.jobs.hold(['array'], { type: 'array.create', target: '/mnt/user' });
  try {
    return await setupArrayHeld(ctx, actor, body);
  } finally {
    release();
  }
}

async function setupArrayHeld(
  ctx: AppContext,
  actor: Actor | null,
  body: v.InferOutput<typeof ArraySetupBody>,
) {
  await checkSetupTools(ctx.runner, [
    ...new Set(body.disks.map((d) => (d.role === 'parity' ? 'xfs' : (d.filesystem ?? 'xfs')))),
  ]);
  await checkSetup(ctx, body);
  const keys = body.disks.map((d) => diskLockKey(d.device));
  const busy = () =>
    conflict(
      'disk_busy',
      'Another operation is using one of these disks: wait for it to finish, then try again.',
    );
  return ctx.locks.tryRun(keys, busy, async () => {
    const plan = await checkSetup(ctx, body); // re-run under the locks
    const operationId = ctx.random.uuid();
    const progress = ctx.events.progress(operationId, 'array.create', '/mnt/user');
    let result: Awaited<ReturnType<typeof executeArraySetup>>;
    try {
      result = await executeArraySetup(plan, {
        paths: ctx.paths,
        runner: ctx.runner,
        onProgress: (e) => progress.update({ ...e }),
        // boot-persistent mount units only outside lab mode and without a root prefix (08 §9.3)
        labMode: ctx.config.lab.enabled,
        log: (message, fields) => ctx.logger.warn(message, fields),
      });
    } catch (err) {
      progress.finish({ ok: false, step: err instanceof AppError ? err.details?.['step'] : undefined });
      if (!(err instanceof AppError)) ctx.logger.error('array setup failed', { error: String(err) });
      throw err;
    }
    try {
      await ctx.writes.run((db) => {
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
    } catch (err) {
      if (result.mountUnits)
        await removeMountUnits(result.mountUnits, {
          runner: ctx.runner,
          log: (message, fields) => ctx.logger.warn(message, fields),
        });
      await undoMounts(ctx.runner, result.mounted);
      progress.finish({ ok: false, step: 'record' });
      throw err;
    }
    // What the service wrote, for the drift watcher (issue 22).
    ctx.generated.recordQuietly(ctx.paths.snapraidConf, result.snapraidConf);
    for (const file of result.mountUnits?.files ?? []) ctx.generated.recordQuietly(file);
    progress.finish({ ok: true });
    return getArray(ctx);
  });
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
  return (await withMounted(ctx, [updated]))[0]!;
}
