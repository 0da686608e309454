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
import { isoMillis, Refusal, refuse } from '@appliance/common';
import type { JobHandle, JobImplementation } from '@appliance/jobs';
import { appDataRoots } from '../core/appdata.ts';
import * as backupEvents from '../core/messages.ts';
import type { PartFailure } from '../core/messages.ts';
import { type Part, partKey, partLabel, partsOf, snapshotTags } from '../core/parts.ts';
import { type BackupPlan, configCopyPath } from '../core/plan.ts';
import { jobProgress } from '../core/progress.ts';
import type { Restic } from '../node/restic.ts';
import type { BackupPorts, Destination } from '../ports.ts';
import {
  APPDATA_ROOT,
  CONFIG_FILE,
  onDestination,
  openPlanForJob,
  openPlanRestic,
  watched,
} from './common.ts';
import type { BackupRunResult, PartResult, RunParams } from './kinds.ts';
import { applyRetention, ensureRepository, type RetentionResult } from './repository.ts';

const lostLine = (label: string) =>
  `the backup disk "${label}" stopped answering during the run (unplugged or failed): re-attach it and run the backup again`;

const refOf = (part: Part) =>
  part.kind === 'config' ? { kind: 'config' as const } : { kind: part.kind, name: part.name };

interface PartContext {
  ports: BackupPorts;
  job: JobHandle;
  plan: BackupPlan;
  restic: Restic;
  dest: Destination;
  tmp: string;
  progress: { index: number; count: number };
}

/** What a part backs up: the folder restic runs in, the paths below it and the snapshot's tags. */
interface PartSource {
  cwd: string;
  paths: string[];
  tags: string[];
}

async function backupPart(
  { ports, job, plan, restic, dest, tmp, progress }: PartContext,
  part: Part,
  /** Set when a stack this part stopped did not start again. */
  restart: { failure: string | null },
): Promise<PartResult> {
  const started = Date.now();
  const result = (r: Partial<PartResult>): PartResult => ({
    part: refOf(part),
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
  const host = ports.settings().hostname;
  let source: PartSource;
  let stopped = false;
  let unpause: (() => void) | null = null;
  const stacks = ports.stacks;
  try {
    if (part.kind === 'config') {
      if (!ports.configArchive) return result({ error: 'the configuration archive cannot be written here' });
      const cwd = path.join(tmp, 'config');
      await fs.mkdir(cwd, { mode: 0o700 });
      await ports.configArchive.write(path.join(cwd, CONFIG_FILE));
      source = { cwd, paths: [CONFIG_FILE], tags: snapshotTags(plan.name, part) };
    } else if (part.kind === 'share') {
      const cwd = ports.paths.real(`/mnt/user/${part.name}`);
      const st = await fs.lstat(cwd).catch(() => null);
      if (!st?.isDirectory())
        return result({
          error: `the share's folder /mnt/user/${part.name} does not exist or is not a folder`,
        });
      source = { cwd, paths: ['.'], tags: snapshotTags(plan.name, part) };
    } else {
      const root = ports.paths.real(APPDATA_ROOT);
      const roots = appDataRoots(await stacks.bindSources(part.name), root);
      if (roots.length === 0)
        return result({
          state: 'skipped',
          note: `the stack ${part.name} binds no folder below ${APPDATA_ROOT}: it has no app data to back up`,
        });
      source = {
        cwd: root,
        paths: roots.map((r) => path.relative(root, r)),
        tags: snapshotTags(
          plan.name,
          part,
          roots.map((r) => ports.paths.logical(r) ?? r),
        ),
      };
      if (!part.keepRunning && (await stacks.running(part.name)).length > 0) {
        job.output(`stopping the stack ${part.name} for a consistent copy`);
        // its containers' conditions (unhealthy) are not news while the backup stops and starts it
        unpause = stacks.pauseWatch(part.name);
        stopped = true;
        await stacks.stop(part.name);
      }
    }
    const run = await watched(dest, job, (signal) =>
      restic.backup(
        { cwd: source.cwd, paths: source.paths, tags: source.tags, host },
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
    await ports.store.recordSnapshot({
      id: s.snapshotId,
      plan: plan.name,
      part: partKey(part),
      time: isoMillis(ports.clock.now()),
      sizeBytes: s.totalBytes,
      dataAddedBytes: s.dataAdded,
      files: s.totalFiles,
    });
    if (part.kind === 'config') await copyConfigBeside(ports, dest, plan.name, source.cwd);
    return result({
      state: 'succeeded',
      snapshot: s.snapshotId,
      files: s.totalFiles,
      bytes: s.totalBytes,
      dataAdded: s.dataAdded,
    });
  } catch (err) {
    if (!(err instanceof Refusal))
      ports.logger.error('backup part failed', { part: partKey(part), error: String(err) });
    return result({ error: err instanceof Refusal ? err.message : `unexpected failure: ${String(err)}` });
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

/**
 * The latest archive also sits beside the repository, readable without the repository password,
 * so a new box can import it first and then read every snapshot.
 */
async function copyConfigBeside(ports: BackupPorts, dest: Destination, plan: string, cwd: string) {
  const copy = ports.paths.real(configCopyPath(dest.mountpoint, plan));
  const tmpCopy = `${copy}.tmp`;
  await fs.copyFile(path.join(cwd, CONFIG_FILE), tmpCopy);
  await fs.chmod(tmpCopy, 0o600);
  const fh = await fs.open(tmpCopy, 'r');
  await fh.sync();
  await fh.close();
  await fs.rename(tmpCopy, copy);
}

/** A part's backup; a stack that was stopped for it and did not start again fails the part. */
async function backupPartAndRestart(c: PartContext, part: Part): Promise<PartResult> {
  const restart = { failure: null as string | null };
  const r = await backupPart(c, part, restart);
  const startFailure = restart.failure;
  if (startFailure === null) return r;
  return {
    ...r,
    state: 'failed',
    error: `${r.state === 'succeeded' ? 'backed up, but ' : `${r.error ?? 'failed'}; and `}the stack did not start again: ${startFailure}`,
  };
}

async function runPlan(
  ports: BackupPorts,
  job: JobHandle,
  params: RunParams,
  seen: { dest: Destination | null },
): Promise<BackupRunResult> {
  const { plan, dest, tmp } = await openPlanForJob(ports, job, params.plan, seen);
  const results: PartResult[] = [];
  let retention: RetentionResult | null = null;
  const parts = partsOf(plan);
  try {
    const restic = await openPlanRestic(ports, plan.name, dest.repository(plan.name), tmp.dir);
    try {
      const { created } = await ensureRepository(restic);
      for (const [index, part] of parts.entries()) {
        if (job.signal.aborted) break;
        const lost = !(await dest.alive());
        if (lost || results.some((r) => r.error === lostLine(dest.label))) {
          results.push({
            part: refOf(part),
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
        const progress = { index, count: parts.length };
        results.push(
          await backupPartAndRestart({ ports, job, plan, restic, dest, tmp: tmp.dir, progress }, part),
        );
      }
      // a repository made by this run holds only its snapshots: nothing to forget today
      if (created)
        await ports.store.updateState(plan.name, { lastRetentionAt: isoMillis(ports.clock.now()) });
      else if (!job.signal.aborted && results.some((r) => r.state === 'succeeded') && (await dest.alive()))
        retention = await applyRetention(ports, job, plan, restic);
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
    throw refuse(
      'backup_failed',
      `The backup of plan ${plan.name} failed for ${failed.map((f) => `${partLabel(f.part)} (${f.error})`).join('; ')}.${results.some((r) => r.state === 'succeeded') ? ' The other parts were backed up.' : ''}`,
      { parts: results, retention },
    );
  return { parts: results, retention };
}

/** The handler of `backupRunJob` over the ports: register it with `runner.register(backupRunJob, …)`. */
export function backupRunHandler(ports: BackupPorts): JobImplementation<RunParams, BackupRunResult> {
  const raise = async (e: backupEvents.RaisedEvent) => {
    try {
      await ports.events.raise(e);
    } catch (err) {
      ports.logger.error('backup event not raised', { eventType: e.eventType, error: String(err) });
    }
  };
  return {
    run: (job, params) => onDestination(params.destination, (seen) => runPlan(ports, job, params, seen)),
    async after(view) {
      const params = view.params;
      const at = view.endedAt ?? isoMillis(ports.clock.now());
      await ports.store
        .recordRun(params.plan, at, view.id, view.state)
        .catch((err: unknown) => ports.logger.error('backup state not recorded', { error: String(err) }));
      if (view.state === 'succeeded') await ports.events.runSucceeded?.();
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
        const plan = await ports.store.readPlan(params.plan);
        const reason = view.error?.message ?? 'the run failed';
        failures = (plan ? partsOf(plan) : [{ kind: 'config' } as const]).map((p) => ({
          part: refOf(p),
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
