/**
 * `backup.run` (issue 23): one run of a plan, as a job holding its destination's group
 * (`backup:<label>`: one job per destination, never beside a format of it). Destination → each part
 * (the configuration archive, each stack's app data with the stack stopped and started again unless
 * the plan keeps it running, each share) as its own restic snapshot → retention → the latest
 * configuration archive beside the repository → unmount when this run mounted the disk. A part that
 * fails does not stop the others; a destination that stops answering stops the run at once.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  appDataRoots,
  backupEvents,
  configCopyPath,
  decideRetention,
  jobProgress,
  type Part,
  type PartFailure,
  partKey,
  partLabel,
  partsOf,
  pruneDue,
  type Restic,
  retentionDue,
  snapshotTags,
} from '@appliance/backups';
import { AppError, isoMillis } from '@appliance/common';
import { CONTAINER_KEY_PREFIX } from '@appliance/watchers';
import type { AppContext } from '../../context.ts';
import type { JobHandle, JobImplementation } from '@appliance/jobs';
import type { BackupRunResult, PartResult, RunParams } from './kinds.ts';
import { readSettings } from '../settings/index.ts';
import { jobTempDir, openPlanRestic, passwordMissing, stackControl, writeConfigArchive } from './adapters.ts';
import { asDestinationFailure, type Destination, openDestination } from './destination.ts';
import { checkStaleness } from './schedules.ts';
import {
  forgetSnapshots,
  readPlan,
  readState,
  recordRun,
  recordSnapshot,
  type StoredPlan,
  updateState,
} from './store.ts';

export type { PartResult, RunParams } from './kinds.ts';

/** How often the job checks that the destination still answers while restic writes. */
export const WATCH_MS = 2_000;

export const APPDATA_ROOT = '/mnt/cache';
export const CONFIG_FILE = 'appliance-config.tar.zst';

const lostLine = (label: string) =>
  `the backup disk "${label}" stopped answering during the run (unplugged or failed): re-attach it and run the backup again`;

/**
 * A job of a plan (run, drill, restore): an unexpected failure because the backup disk stopped
 * answering ends it with the sentence naming the disk, never `internal`.
 */
export async function onDestination<T>(
  label: string,
  work: (seen: { dest: Destination | null }) => Promise<T>,
): Promise<T> {
  const seen: { dest: Destination | null } = { dest: null };
  try {
    return await work(seen);
  } catch (err) {
    throw asDestinationFailure(err, label, seen.dest);
  }
}

/**
 * The start of every job of a plan (run, drill, restore): the plan with its repository password,
 * its destination mounted (phase `destination`) and a private temporary directory.
 */
/**
 * Pauses the watch of a stack's containers while a job stops and starts it on purpose (a backup
 * or a restore): a condition that held before the stop and holds after is the same condition.
 */
export function pauseStackWatch(ctx: AppContext, stack: string): () => void {
  return ctx.watchers.pause([`${CONTAINER_KEY_PREFIX}${stack}/`]);
}

export async function openPlanForJob(
  ctx: AppContext,
  job: JobHandle,
  name: string,
  /** Gets the destination once it is open (for `asDestinationFailure`). */
  seen?: { dest: Destination | null },
) {
  const plan = readPlan(ctx.db, name);
  if (!plan) throw planNotFound(name);
  if (plan.sealedPassword === null) throw passwordMissing(plan.name);
  job.phase('destination');
  const dest = await openDestination(ctx, plan.destination);
  if (seen) seen.dest = dest;
  const tmp = await jobTempDir(ctx, job.id);
  return { plan, dest, tmp };
}

export function planNotFound(name: string): AppError {
  return new AppError(
    404,
    'backup_plan_not_found',
    `There is no backup plan named "${name}": list the plans (GET /api/v1/backups/plans).`,
    { plan: name },
  );
}

/** Runs one restic command while watching the destination; a lost destination stops it. */
export async function watched<T extends { cancelled: boolean }>(
  dest: Destination,
  job: JobHandle,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T & { lost: boolean }> {
  const lost = new AbortController();
  let gone = false;
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    void dest
      .alive()
      .then((ok) => {
        if (!ok && !gone) {
          gone = true;
          job.output(`the destination ${dest.mountpoint} stopped answering: stopping restic`);
          lost.abort();
        }
      })
      .finally(() => {
        checking = false;
      });
  }, WATCH_MS);
  try {
    const r = await fn(AbortSignal.any([job.signal, lost.signal]));
    return { ...r, lost: gone };
  } finally {
    clearInterval(timer);
  }
}

async function backupPart(
  ctx: AppContext,
  job: JobHandle,
  plan: StoredPlan,
  part: Part,
  restic: Restic,
  dest: Destination,
  tmp: string,
  progress: { index: number; count: number },
  /** Set when a stack this part stopped did not start again. */
  restart: { failure: string | null },
): Promise<PartResult> {
  const started = Date.now();
  const result = (r: Partial<PartResult>): PartResult => ({
    part: part.kind === 'config' ? { kind: 'config' } : { kind: part.kind, name: part.name },
    state: 'failed',
    snapshot: null,
    files: null,
    bytes: null,
    dataAdded: null,
    error: null,
    note: null,
    ...r,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  });
  const host = readSettings(ctx.db).hostname;
  let cwd: string;
  let paths: string[];
  let tags: string[];
  let stopped = false;
  let unpause: (() => void) | null = null;
  const stacks = stackControl(ctx);
  try {
    if (part.kind === 'config') {
      cwd = path.join(tmp, 'config');
      await fs.mkdir(cwd, { mode: 0o700 });
      await writeConfigArchive(ctx, path.join(cwd, CONFIG_FILE));
      paths = [CONFIG_FILE];
      tags = snapshotTags(plan.name, part);
    } else if (part.kind === 'share') {
      cwd = ctx.paths.real(`/mnt/user/${part.name}`);
      const st = await fs.lstat(cwd).catch(() => null);
      if (!st?.isDirectory())
        return result({
          error: `the share's folder /mnt/user/${part.name} does not exist or is not a folder`,
        });
      paths = ['.'];
      tags = snapshotTags(plan.name, part);
    } else {
      const root = ctx.paths.real(APPDATA_ROOT);
      const roots = appDataRoots(await stacks.bindSources(part.name), root);
      if (roots.length === 0)
        return result({
          state: 'skipped',
          note: `the stack ${part.name} binds no folder below ${APPDATA_ROOT}: it has no app data to back up`,
        });
      cwd = root;
      paths = roots.map((r) => path.relative(root, r));
      tags = snapshotTags(
        plan.name,
        part,
        roots.map((r) => ctx.paths.logical(r) ?? r),
      );
      if (!part.keepRunning && (await stacks.running(part.name)).length > 0) {
        job.output(`stopping the stack ${part.name} for a consistent copy`);
        // its containers' conditions (unhealthy) are not news while the backup stops and starts it
        unpause = pauseStackWatch(ctx, part.name);
        stopped = true;
        await stacks.stop(part.name);
      }
    }
    const run = await watched(dest, job, (signal) =>
      restic.backup(
        { cwd, paths, tags, host },
        {
          signal,
          onSpawn: (pid) => job.pid(pid),
          onOutput: (line) => job.output(line),
          onStatus: (s) =>
            job.progress({
              ...jobProgress(s),
              part: partKey(part),
              partIndex: progress.index + 1,
              parts: progress.count,
            }),
        },
      ),
    );
    if (run.lost) return result({ error: lostLine(dest.label) });
    if (run.cancelled) return result({ error: 'cancelled' });
    if (run.errorLine !== null || !run.summary)
      return result({
        error: run.errorLine ?? 'restic printed no summary',
        snapshot: run.summary?.snapshotId ?? null,
      });
    const s = run.summary;
    await ctx.writes.run((db) =>
      recordSnapshot(db, {
        id: s.snapshotId,
        plan: plan.name,
        part: partKey(part),
        time: isoMillis(ctx.clock.now()),
        sizeBytes: s.totalBytes,
        dataAddedBytes: s.dataAdded,
        files: s.totalFiles,
      }),
    );
    if (part.kind === 'config') {
      // The latest archive also sits beside the repository, readable without the repository
      // password, so a new box can import it first and then read every snapshot.
      const copy = ctx.paths.real(configCopyPath(dest.mountpoint, plan.name));
      const tmpCopy = `${copy}.tmp`;
      await fs.copyFile(path.join(cwd, CONFIG_FILE), tmpCopy);
      await fs.chmod(tmpCopy, 0o600);
      const fh = await fs.open(tmpCopy, 'r');
      await fh.sync();
      await fh.close();
      await fs.rename(tmpCopy, copy);
    }
    return result({
      state: 'succeeded',
      snapshot: s.snapshotId,
      files: s.totalFiles,
      bytes: s.totalBytes,
      dataAdded: s.dataAdded,
    });
  } catch (err) {
    if (!(err instanceof AppError))
      ctx.logger.error('backup part failed', { part: partKey(part), error: String(err) });
    return result({ error: err instanceof AppError ? err.message : `unexpected failure: ${String(err)}` });
  } finally {
    if (stopped && part.kind === 'stack') {
      job.output(`starting the stack ${part.name} again`);
      await stacks.start(part.name).catch((err: unknown) => {
        restart.failure = err instanceof Error ? err.message : String(err);
        job.output(`the stack ${part.name} did not start again: ${restart.failure}`);
      });
    }
    // started again: its health checks answer `starting` until they know (unobserved as well)
    unpause?.();
  }
}

/** A part's backup; a stack that was stopped for it and did not start again fails the part. */
async function backupPartAndRestart(
  ...args: Parameters<typeof backupPart> extends [...infer A, unknown] ? A : never
): Promise<PartResult> {
  const restart = { failure: null as string | null };
  const r = await backupPart(...args, restart);
  const startFailure = restart.failure;
  if (startFailure === null) return r;
  return {
    ...r,
    state: 'failed',
    error: `${r.state === 'succeeded' ? 'backed up, but ' : `${r.error ?? 'failed'}; and `}the stack did not start again: ${startFailure}`,
  };
}

/** restic's repository of the plan on the destination, created the first time. */
export async function ensureRepository(restic: Restic): Promise<{ created: boolean }> {
  if (await restic.exists()) {
    await restic.unlockStale();
    return { created: false };
  }
  const entries = await fs.readdir(restic.repository).catch(() => null);
  if (entries !== null && entries.length > 0)
    throw new AppError(
      409,
      'repository_unusable',
      `The folder for this plan's repository on the backup disk holds files but no restic repository: move them away, then run the backup again.`,
    );
  const r = await restic.init();
  if (r.errorLine !== null)
    throw new AppError(
      500,
      'repository_init_failed',
      `restic could not create the repository: ${r.errorLine}`,
    );
  return { created: true };
}

export interface RetentionResult {
  /** False: retention ran earlier today (it runs on the first run of each local day). A run that
   * made the repository has nothing to forget and reports `retention: null`. */
  ran: boolean;
  removed: number;
  kept: number | null;
  pruned: boolean;
}

async function applyRetention(
  ctx: AppContext,
  job: JobHandle,
  plan: StoredPlan,
  restic: Restic,
): Promise<RetentionResult> {
  const timeZone = readSettings(ctx.db).timezone;
  const state = readState(ctx.db, plan.name);
  const now = ctx.clock.now();
  if (!retentionDue(state?.lastRetentionAt ? new Date(state.lastRetentionAt) : null, now, timeZone))
    return { ran: false, removed: 0, kept: null, pruned: false };
  job.phase('retention');
  const { run, snapshots } = await restic.snapshots();
  if (run.errorLine !== null)
    throw new AppError(500, 'retention_failed', `restic snapshots failed: ${run.errorLine}`);
  const decision = decideRetention(snapshots, plan.retention, timeZone);
  if (decision.remove.length > 0) {
    const forgot = await restic.forget(decision.remove, { onOutput: (l) => job.output(l) });
    if (forgot.errorLine !== null)
      throw new AppError(500, 'retention_failed', `restic forget failed: ${forgot.errorLine}`);
  }
  const removedShort = snapshots.filter((s) => decision.remove.includes(s.id)).map((s) => s.shortId);
  const at = isoMillis(now);
  const forgotten = (state?.forgottenSincePrune ?? 0) + decision.remove.length;
  await ctx.writes.run((db) => {
    forgetSnapshots(db, removedShort);
    updateState(db, plan.name, at, { lastRetentionAt: at, forgottenSincePrune: forgotten });
  });
  const result = { ran: true, removed: decision.remove.length, kept: decision.keep.length, pruned: false };
  if (
    !pruneDue({
      lastPruneAt: state?.lastPruneAt ? new Date(state.lastPruneAt) : null,
      forgottenSincePrune: forgotten,
      now,
    })
  )
    return result;
  job.phase('prune', { cancellable: true });
  const pruned = await restic.prune({
    signal: job.signal,
    onOutput: (l) => job.output(l),
    onSpawn: (p) => job.pid(p),
  });
  if (pruned.cancelled) return result;
  if (pruned.errorLine !== null)
    throw new AppError(500, 'retention_failed', `restic prune failed: ${pruned.errorLine}`);
  await ctx.writes.run((db) =>
    updateState(db, plan.name, isoMillis(ctx.clock.now()), {
      lastPruneAt: isoMillis(ctx.clock.now()),
      forgottenSincePrune: 0,
    }),
  );
  return { ...result, pruned: true };
}

export function runJobImplementation(ctx: AppContext): JobImplementation<RunParams, BackupRunResult> {
  const raise = async (e: backupEvents.RaisedEvent) => {
    try {
      await ctx.hooks.raise?.(e);
    } catch (err) {
      ctx.logger.error('backup event not raised', { eventType: e.eventType, error: String(err) });
    }
  };
  const runPlan = async (job: JobHandle, params: RunParams, seen: { dest: Destination | null }) => {
    const { plan, dest, tmp } = await openPlanForJob(ctx, job, params.plan, seen);
    const results: PartResult[] = [];
    let retention: RetentionResult | null = null;
    const parts = partsOf(plan);
    try {
      const restic = await openPlanRestic(ctx, plan, dest.repository(plan.name), tmp.dir);
      try {
        const { created } = await ensureRepository(restic);
        for (const [index, part] of parts.entries()) {
          if (job.signal.aborted) break;
          const lost = !(await dest.alive());
          if (lost || results.some((r) => r.error === lostLine(dest.label))) {
            results.push({
              part: part.kind === 'config' ? { kind: 'config' } : { kind: part.kind, name: part.name },
              state: 'failed',
              snapshot: null,
              files: null,
              bytes: null,
              dataAdded: null,
              seconds: 0,
              error: lostLine(dest.label),
              note: null,
            });
            continue;
          }
          job.phase(`${partLabel(part)} (${index + 1}/${parts.length})`, { cancellable: true });
          results.push(
            await backupPartAndRestart(ctx, job, plan, part, restic, dest, tmp.dir, {
              index,
              count: parts.length,
            }),
          );
        }
        // a repository made by this run holds only its snapshots: nothing to forget today
        if (created) {
          const at = isoMillis(ctx.clock.now());
          await ctx.writes.run((db) => updateState(db, plan.name, at, { lastRetentionAt: at }));
        } else if (
          !job.signal.aborted &&
          results.some((r) => r.state === 'succeeded') &&
          (await dest.alive())
        )
          retention = await applyRetention(ctx, job, plan, restic);
      } finally {
        await restic.close();
      }
    } finally {
      await tmp.done().catch(() => undefined);
      job.phase('unmount');
      await dest.close();
    }
    if (job.signal.aborted) return { parts: results, retention };
    const failed = results.filter((r) => r.state === 'failed');
    if (failed.length > 0)
      throw new AppError(
        500,
        'backup_failed',
        `The backup of plan ${plan.name} failed for ${failed.map((f) => `${partLabel(f.part)} (${f.error})`).join('; ')}.${results.some((r) => r.state === 'succeeded') ? ' The other parts were backed up.' : ''}`,
        { parts: results, retention },
      );
    return { parts: results, retention };
  };
  return {
    run: (job, params) => onDestination(params.destination, (seen) => runPlan(job, params, seen)),
    async after(view) {
      const params = view.params;
      const at = view.endedAt ?? isoMillis(ctx.clock.now());
      await ctx.writes
        .run((db) => recordRun(db, params.plan, at, view.id, view.state))
        .catch((err: unknown) => ctx.logger.error('backup state not recorded', { error: String(err) }));
      if (view.state === 'succeeded') await checkStaleness(ctx);
      if (view.state !== 'failed') return;
      const scheduled = view.trigger === 'schedule';
      const details = view.error?.details as { parts?: PartResult[] } | undefined;
      let failures: PartFailure[];
      if (details?.parts) {
        failures = details.parts
          .filter((p) => p.state === 'failed')
          .map((p) => ({ part: p.part, reason: p.error ?? 'failed' }));
      } else {
        // the run stopped before any part (destination missing, no password): every part failed
        const plan = readPlan(ctx.db, params.plan);
        const reason = view.error?.message ?? 'the run failed';
        failures = (plan ? partsOf(plan) : [{ kind: 'config' } as const]).map((p) => ({
          part: p.kind === 'config' ? { kind: 'config' } : { kind: p.kind, name: p.name },
          reason,
        }));
      }
      const config = failures.find((f) => f.part.kind === 'config');
      if (config)
        await raise(backupEvents.configBackupFailed({ plan: params.plan, reason: config.reason, scheduled }));
      const data = failures.filter((f) => f.part.kind !== 'config');
      if (data.length > 0)
        await raise(backupEvents.appdataBackupFailed({ plan: params.plan, failures: data, scheduled }));
    },
  };
}
