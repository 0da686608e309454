/**
 * The disk jobs (issue 21, 03 §11–§12): `disk.upgrade` (a data or parity slot onto a larger disk)
 * and `disk.replace` (a failed disk rebuilt from parity), on the job runner in the `array` group.
 * Phases, verdicts and the recovery decision come from @appliance/array-planner's core
 * (`disk-job.ts`); formatting, mounting, copying, metadata and the pool's branch modes are its
 * adapters; snapraid runs through @appliance/parity. The slot's row is the one point of truth: the
 * switch records it in one transaction, and until then the slot is on its old disk — a cancel, a
 * failure or a restart before it puts everything back there (`settle`), after it forward.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  type ArraySlot,
  checkReplaceRequest,
  checkUpgradeRequest,
  copyTree,
  type DiskJobKind,
  type DiskJobParams,
  type DiskJobPhase,
  DISK_JOB_TYPES,
  diskJobParams,
  type DiskUpgradePlan,
  formatDisk,
  interruptedMessage,
  isMountedAt,
  jobConfMembers,
  jobSlot,
  judgeCheck,
  keptOldMessage,
  measureSlot,
  minFreeSpaceMiB,
  mountByUuid,
  persistsMountUnits,
  phaseSpec,
  remount,
  renderMountUnits,
  replaceMountUnits,
  restoreMetadata,
  metadataFiles,
  setBranchMode,
  guardSlotMountpoint,
  settleSlot,
  swapBranch,
  settlement,
  slotSide,
  snapraidDiskName,
  stagingMountpoint,
  switchedRow,
  toAppError,
  unmount,
  writeSnapraidConf,
  arraySnapraidConf,
  isPoolMounted,
  type SlotSide,
} from '@appliance/array-planner';
import { AppError, type DiskInventoryEntry, diskLockKey, isoMillis } from '@appliance/common';
import { createSnapraid, type FixFindings } from '@appliance/parity';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { arrayDisks } from '../../db/schema.ts';
import type { Actor } from '../../services/audit.ts';
import { defineJob, type JobHandle, type JobImplementation, JobBlocked } from '@appliance/jobs';
import { ARRAY_GROUP, failed, handlers, syncParity } from '@appliance/parity';
import { parityJobDeps } from '../parity/deps.ts';
import { readParityState } from '../parity/store.ts';
import { listExternals, listSlots, readSettings } from './store.ts';
import { doesNotFit } from './fit.ts';

/** What a disk job records: where the slot is and how long each phase took (shape per outcome). */
export type DiskJobResult = Record<string, unknown>;

/** `disk.upgrade`: a data or parity disk copied onto a bigger one, the slot switched. */
export const diskUpgradeJob = defineJob<DiskJobParams, DiskJobResult>({
  type: 'disk.upgrade',
  title: 'disk upgrade',
  groups: [ARRAY_GROUP],
});

/** `disk.replace`: a missing or failing disk rebuilt onto a new one. */
export const diskReplaceJob = defineJob<DiskJobParams, DiskJobResult>({
  type: 'disk.replace',
  title: 'disk replace',
  groups: [ARRAY_GROUP],
});

const DISK_JOBS = new Set([diskUpgradeJob.type, diskReplaceJob.type]);

/** The id of a disk job running now (for `409 disk_job_running`), else null. */
export function runningDiskJobId(ctx: AppContext): string | null {
  const h = ctx.jobs.busy([ARRAY_GROUP]);
  return h?.jobId && DISK_JOBS.has(h.type) ? h.jobId : null;
}

/**
 * What the mountpoint directory of a slot holds while nothing is mounted there: files the pool
 * wrote onto the system disk while the slot's disk was missing (the first few names).
 */
export async function strayEntries(ctx: AppContext, mountpoint: string): Promise<string[]> {
  if (await isMountedAt(ctx.paths, mountpoint)) return [];
  const names = await fs.readdir(ctx.paths.real(mountpoint)).catch(() => [] as string[]);
  return names.sort().slice(0, 20);
}

/** Starts a disk job for an accepted plan (its audit row is `disks.array.upgrade` / `.replace`). */
export async function startDiskJob(
  ctx: AppContext,
  actor: Actor | null,
  kind: DiskJobKind,
  plan: DiskUpgradePlan,
): Promise<{ id: string; type: string }> {
  const rows = listSlots(ctx.db);
  const slot = rows.find((r) => r.mountpoint === plan.mountpoint);
  if (!slot) throw new AppError(404, 'disk_slot_not_found', `no data or parity disk at "${plan.mountpoint}"`);
  const byIdName =
    (await ctx.inventory.read()).disks.find((d) => d.device === plan.replacementDevice)?.byIdName ?? null;
  const params = diskJobParams({ kind, slot, plan, byIdName, newFsUuid: ctx.random.uuid() });
  const upgrade = kind === 'upgrade_data' || kind === 'upgrade_parity';
  if (ctx.locks.isHeld(diskLockKey(plan.replacementDevice)))
    throw new AppError(
      409,
      'disk_busy',
      `Another operation is using ${plan.replacementDevice}: wait for it to finish, then try again.`,
      { device: plan.replacementDevice },
    );
  const { view: job } = await ctx.jobs.start(upgrade ? diskUpgradeJob : diskReplaceJob, params, {
    target: plan.mountpoint,
    actor,
    auditOperation: upgrade ? 'disks.array.upgrade' : 'disks.array.replace',
    audit: {
      status: 'started',
      type: DISK_JOB_TYPES[kind],
      device: plan.replacementDevice,
      newMountpoint: plan.newMountpoint,
    },
  });
  return { id: job.id, type: DISK_JOB_TYPES[kind] };
}

/** Thrown inside a run when a cancel (or shutdown) arrived: the slot goes back to its old disk. */
class Stopped extends Error {}

interface PhaseTime {
  phase: DiskJobPhase;
  seconds: number;
}

/**
 * Failure injection for the crash tests, in lab mode only: when `<state>/lab-pause` names this
 * point, the job writes `<state>/lab-paused` and waits there until the service is killed, the job
 * is cancelled or shut down, or the pause file no longer names the point.
 */
async function labPause(ctx: AppContext, job: JobHandle, point: string): Promise<void> {
  if (!ctx.config.lab.enabled) return;
  const file = path.join(ctx.paths.stateDir, 'lab-pause');
  const wanted = async () => (await fs.readFile(file, 'utf8').catch(() => '')).trim() === point;
  if (!(await wanted())) return;
  await fs.writeFile(path.join(ctx.paths.stateDir, 'lab-paused'), point);
  while (!job.signal.aborted && (await wanted())) await new Promise((r) => setTimeout(r, 100));
}

/** One run of a disk job. */
class DiskJobRun {
  private readonly ctx: AppContext;
  private readonly job: JobHandle;
  private readonly p: DiskJobParams;
  private readonly phases: PhaseTime[] = [];
  private phaseStarted = Date.now();
  /** Whether the switch is recorded (the slot's row names the new disk). */
  switched = false;
  private entry: DiskInventoryEntry | null = null;

  constructor(ctx: AppContext, job: JobHandle, params: DiskJobParams) {
    this.ctx = ctx;
    this.job = job;
    this.p = params;
  }

  private get dataName() {
    return snapraidDiskName(this.p.role, this.p.roleIndex);
  }

  /** Enters a phase of the core's list (stopping first when a cancel arrived), then the lab pause. */
  private async enter(name: DiskJobPhase): Promise<void> {
    this.closePhase();
    if (this.job.signal.aborted) throw new Stopped();
    this.job.phase(name, { cancellable: phaseSpec(this.p.kind, name).cancellable });
    this.phases.push({ phase: name, seconds: -1 });
    this.phaseStarted = Date.now();
    await labPause(this.ctx, this.job, name);
    if (this.job.signal.aborted) throw new Stopped();
  }

  private closePhase(): void {
    const last = this.phases.at(-1);
    if (last && last.seconds < 0) last.seconds = round((Date.now() - this.phaseStarted) / 1000);
  }

  /** How long each phase took (the result; the benchmark reads it). */
  private timings(): PhaseTime[] {
    this.closePhase();
    return this.phases;
  }

  private snapraid(configFile = this.ctx.paths.snapraidConf) {
    return createSnapraid({ runner: this.ctx.runner, configFile });
  }

  /** The job's own snapraid.conf (the slot at the staging path / the new parity mountpoint). */
  private jobConf(): string {
    return path.join(this.ctx.paths.stateDir, 'disk-jobs', 'snapraid.conf');
  }

  async execute(): Promise<DiskJobResult> {
    try {
      const result = await this.ctx.locks.tryRun(
        diskLockKey(this.p.device),
        () =>
          new AppError(409, 'disk_busy', `Another operation is using ${this.p.device}; nothing was written.`),
        () => this.steps(),
      );
      await fs.rm(path.dirname(this.jobConf()), { recursive: true, force: true });
      return result;
    } catch (err) {
      if (this.switched) {
        // the slot is on the new disk: finish what the switch left and say so
        await settle(this.ctx, this.p, 'new').catch((e: unknown) =>
          this.log('settle after switch failed', e),
        );
        if (err instanceof Stopped)
          return this.result({
            stoppedAfterSwitch: true,
            message: `${this.p.targetMountpoint} is on ${this.entry?.device ?? this.p.device} now (the switch is recorded); the sync after it was stopped: run a parity sync (appliance array sync).`,
          });
        if (err instanceof JobBlocked) throw err;
        const why = err instanceof AppError ? err.message : 'see the service log';
        if (!(err instanceof AppError)) this.log('disk job failed after its switch', err);
        throw new AppError(
          500,
          err instanceof AppError ? err.code : 'internal',
          `${this.p.targetMountpoint} is on ${this.p.device} now (the switch is recorded), but the work after it failed: ${why} Run a parity sync (appliance array sync).`,
          err instanceof AppError ? err.details : undefined,
        );
      }
      await settle(this.ctx, this.p, 'old').catch((e: unknown) => this.log('settle failed', e));
      if (err instanceof Stopped)
        return { kept: 'old', message: keptOldMessage(this.p), phases: this.timings() };
      if (err instanceof AppError || err instanceof JobBlocked) throw err;
      this.log('disk job failed', err);
      throw new AppError(
        500,
        'disk_job_failed',
        `The disk ${this.p.kind.startsWith('upgrade') ? 'upgrade' : 'replace'} failed (${err instanceof Error ? err.message : String(err)}); ${keptOldMessage(this.p)} Fix the cause (see the service log) and send the same request again.`,
      );
    }
  }

  private log(message: string, err: unknown) {
    this.ctx.logger.error(message, { jobId: this.job.id, error: String(err) });
  }

  private result(extra: Record<string, unknown>) {
    return {
      kind: this.p.kind,
      mountpoint: this.p.targetMountpoint,
      device: this.entry?.device ?? this.p.device,
      fsUuid: this.p.newFsUuid,
      previousDevice: this.p.previousDevice,
      ...extra,
      phases: this.timings(),
    };
  }

  private async steps(): Promise<DiskJobResult> {
    await this.enter('check');
    this.entry = await this.recheck();
    switch (this.p.kind) {
      case 'upgrade_data':
        return this.upgradeData();
      case 'upgrade_parity':
        return this.upgradeParity();
      case 'replace_data':
        return this.replaceData();
      case 'replace_parity':
        return this.replaceParity();
    }
  }

  /**
   * Before any write: a fresh inventory and rows, the replacement found again (by-id name, else
   * its kernel path), every check of the request again.
   */
  private async recheck(): Promise<DiskInventoryEntry> {
    const { ctx, p } = this;
    const inventory = await ctx.inventory.read();
    const entry = p.byIdName
      ? inventory.disks.find((d) => d.byIdName === p.byIdName)
      : inventory.disks.find((d) => d.device === p.device);
    if (!entry)
      throw new AppError(
        409,
        'unmanaged_device',
        `The new disk ${p.device} is no longer attached; nothing was written.`,
      );
    const rows = listSlots(ctx.db);
    const request = { mountpoint: p.mountpoint, device: entry.device, filesystem: p.filesystem };
    const common = { request, rows, inventory, externals: listExternals(ctx.db), runningDiskJobId: null };
    const confirmation = `ERASE ${entry.device}`;
    if (p.kind === 'upgrade_data' || p.kind === 'upgrade_parity') {
      const checked = checkUpgradeRequest({
        ...common,
        measurements: await measureSlot(ctx.paths, p.mountpoint),
        newMountpoint: p.kind === 'upgrade_parity' ? p.targetMountpoint : null,
        confirmation,
      });
      if (checked.refusal) throw toAppError(checked.refusal);
      const tooSmall = doesNotFit(checked.plan.plan);
      if (tooSmall) throw tooSmall;
    } else {
      const checked = checkReplaceRequest({
        ...common,
        confirmation,
        strayEntries: p.role === 'data' ? await strayEntries(ctx, p.mountpoint) : [],
      });
      if (checked.refusal) throw toAppError(checked.refusal);
    }
    return entry;
  }

  private get device(): string {
    return this.entry!.device;
  }

  private async format(at: string | null): Promise<void> {
    await this.enter('format');
    await formatDisk(this.ctx.runner, {
      device: this.device,
      filesystem: this.p.filesystem,
      label: this.p.label,
      uuid: this.p.newFsUuid,
    });
    // a new slot mountpoint (a parity upgrade's) refuses writes before the disk goes over it
    if (at !== null && at !== stagingMountpoint(this.p.mountpoint))
      await guardSlotMountpoint(
        { runner: this.ctx.runner, paths: this.ctx.paths, log: (m, f) => this.ctx.logger.warn(m, f) },
        at,
      );
    if (at !== null)
      await mountByUuid(this.ctx.runner, this.ctx.paths, {
        uuid: this.p.newFsUuid,
        logical: at,
        device: this.device,
      });
  }

  /** A disk job's sync (before: only when something waits; after: always), guard included. */
  private async sync(phase: 'presync' | 'sync') {
    await this.enter(phase);
    const outcome = await syncParity(parityJobDeps(this.ctx), this.job, {
      force: false,
      phase,
      ...(phase === 'presync' ? { onlyIfChanged: true } : {}),
    });
    if (outcome === null) throw new Stopped();
    return outcome;
  }

  /** The files `snapraid diff` finds changed on this slot's SnapRAID disk (names, at most 20, and the count). */
  private async slotChanges(): Promise<{ count: number; paths: string[] }> {
    const name = this.dataName;
    const out = { count: 0, paths: [] as string[] };
    const { run } = await this.snapraid().diff({
      ...handlers(this.job),
      onRecord: (rec) => {
        if (rec.kind !== 'scan' || rec.change === 'equal' || rec.disk !== name) return;
        out.count++;
        if (out.paths.length < 20) out.paths.push(`${rec.disk}/${rec.path}`);
      },
    });
    if (run.cancelled) throw new Stopped();
    const failure = failed(run, 'sync_failed', 'diff');
    if (failure) throw failure;
    return out;
  }

  private async check(
    configFile: string,
    o: { disk?: string; auditOnly?: boolean },
    fixUnrecoverable: string[] = [],
  ) {
    await this.enter('verify');
    const { run, findings } = await this.snapraid(configFile).check(o, handlers(this.job));
    if (run.cancelled) throw new Stopped();
    const verdict = judgeCheck(this.p, toCheckFindings(findings), fixUnrecoverable);
    if (!verdict.ok)
      throw new AppError(409, verdict.code, verdict.message, { files: verdict.files.slice(0, 100) });
    if (run.errorLine !== null && !(this.p.kind === 'replace_data' && findings.unrecoverable.length > 0))
      throw failed(run, 'check_failed', 'check') ?? new AppError(500, 'check_failed', run.errorLine);
    return findings;
  }

  /** Records the switch: the slot's row names the new disk (one transaction, with its audit row). */
  private async commit(): Promise<ArraySlot> {
    const { ctx, p } = this;
    await labPause(ctx, this.job, 'switch:commit');
    const before = listSlots(ctx.db);
    const slot = jobSlot(before, p);
    if (!slot)
      throw new AppError(
        409,
        'disk_slot_not_found',
        `The slot ${p.mountpoint} is gone; nothing was recorded.`,
      );
    const next = switchedRow(slot, p, this.entry!);
    await ctx.writes.run((db) => {
      db.update(arrayDisks)
        .set({
          device: next.device,
          filesystem: next.filesystem,
          fsUuid: next.fsUuid,
          wwn: next.wwn,
          serial: next.serial,
          byIdName: next.byIdName,
          weakIdentity: next.weakIdentity ? 1 : 0,
          sizeBytes: next.sizeBytes,
          mountpoint: next.mountpoint,
        })
        .where(eq(arrayDisks.id, slot.id))
        .run();
      ctx.audit.record(db, null, {
        operation: 'disks.array.switch',
        target: p.mountpoint,
        details: {
          jobId: this.job.id,
          kind: p.kind,
          from: { device: p.previousDevice, fsUuid: p.previousFsUuid, mountpoint: p.mountpoint },
          to: { device: next.device, fsUuid: next.fsUuid, mountpoint: next.mountpoint },
        },
      });
    });
    this.switched = true;
    await updateMountUnits(ctx, before, listSlots(ctx.db));
    await labPause(ctx, this.job, 'switch:recorded');
    return next;
  }

  // ---- the four kinds ----------------------------------------------------------------------

  private async upgradeData() {
    const { ctx, p } = this;
    const presync = await this.sync('presync');

    await this.enter('freeze');
    const slotAt = ctx.paths.real(p.mountpoint);
    for (let attempt = 1; ; attempt++) {
      await setBranchMode(ctx.runner, ctx.paths, p.mountpoint, 'RO');
      try {
        await remount(ctx.runner, slotAt, 'ro');
      } catch (err) {
        throw new AppError(
          409,
          'disk_busy',
          `${p.mountpoint} could not be made read-only: a file there is open for writing (${err instanceof Error ? err.message.slice(0, 200) : String(err)}). Close it (stop the app or the client writing there), then send the request again. Nothing was written.`,
        );
      }
      const changes = await this.slotChanges();
      if (changes.count === 0) break;
      if (attempt >= 3)
        throw new AppError(
          409,
          'disk_busy',
          `Files on ${p.mountpoint} kept changing between the syncs (${changes.paths.slice(0, 3).join(', ')}); send the request again once nothing writes there. Nothing was written.`,
        );
      // a write slipped in between the sync and the freeze: sync it, then freeze again
      await remount(ctx.runner, slotAt, 'rw');
      await this.sync('presync');
      await this.enter('freeze');
    }

    const staging = stagingMountpoint(p.mountpoint);
    await this.format(staging);

    await this.enter('copy');
    const copy = await copyTree(
      ctx.runner,
      { from: slotAt, to: ctx.paths.real(staging) },
      {
        signal: this.job.signal,
        onSpawn: (pid) => this.job.pid(pid),
        onOutput: (line) => this.job.output(line),
        onProgress: (c) =>
          this.job.progress({
            percent: c.percent,
            bytesDone: c.bytesDone,
            bytesTotal: c.bytesTotal,
            ...(c.etaSeconds !== null ? { etaSeconds: c.etaSeconds } : {}),
            filesLeft: c.filesLeft,
            filesTotal: c.filesTotal,
          }),
      },
    );
    this.job.pid(null);
    if (copy.cancelled) throw new Stopped();
    if (copy.errorLine !== null)
      throw new AppError(500, 'copy_failed', `rsync could not copy ${p.mountpoint}: ${copy.errorLine}`, {
        exitCode: copy.exitCode,
      });

    const conf = this.jobConf();
    await writeSnapraidConf(ctx.paths, jobConfMembers(listSlots(ctx.db), p)!, conf);
    const verify = await this.check(conf, { disk: this.dataName, auditOnly: true });

    await this.enter('switch');
    // The pool serves the slot from the new disk (its staging mount, checked identical) while the
    // slot's mountpoint changes disks: between the old disk's unmount and the new one's mount
    // /mnt/diskN is an empty directory, and a lookup there would find nothing (issue 32). Each
    // swap is one atomic change of the pool's branches, in the slot's place and with its mode.
    await swapBranch(ctx.runner, ctx.paths, p.mountpoint, staging);
    // the old disk is read-only: a reader still holding a file open only delays its release
    await unmount(ctx.runner, slotAt, { busyWaitMs: 10_000, lazy: true });
    await mountByUuid(ctx.runner, ctx.paths, {
      uuid: p.newFsUuid,
      logical: p.mountpoint,
      device: this.device,
    });
    await swapBranch(ctx.runner, ctx.paths, staging, p.mountpoint);
    await unmount(ctx.runner, ctx.paths.real(staging), { busyWaitMs: 10_000, lazy: true });
    const after = await this.slotChanges();
    if (after.count > 0)
      throw new AppError(
        409,
        'copy_differs',
        `"snapraid diff" on the new disk reports ${after.count} changed or missing file(s) (${after.paths.slice(0, 3).join(', ')}); ${p.mountpoint} was put back on ${p.previousDevice}.`,
        { paths: after.paths },
      );
    await this.commit();
    await setBranchMode(ctx.runner, ctx.paths, p.mountpoint, 'RW');
    await fs.rmdir(ctx.paths.real(staging)).catch(() => undefined);

    const sync = await this.syncAfter();
    return this.result({
      presync: presync.reason === 'no_changes' ? 'nothing to sync' : 'synced',
      copied: { bytes: copy.progress?.bytesDone ?? 0, files: copy.progress?.filesTotal ?? null },
      verified: { errors: verify.dataErrors + verify.ioErrors + verify.fileErrors },
      sync,
      message: `${p.mountpoint} is on ${this.device} now. The old disk ${p.previousDevice} is unmounted and unchanged: keep it until you are satisfied, then reuse it.`,
    });
  }

  private async upgradeParity() {
    const { ctx, p } = this;
    const presync = await this.sync('presync');
    await this.format(p.targetMountpoint);
    const conf = this.jobConf();
    await writeSnapraidConf(ctx.paths, jobConfMembers(listSlots(ctx.db), p)!, conf);
    const rebuilt = await this.rebuild(conf);
    await this.check(conf, {});
    await this.enter('switch');
    await this.commit();
    await writeArrayConf(ctx, listSlots(ctx.db));
    await unmount(ctx.runner, ctx.paths.real(p.mountpoint), { busyWaitMs: 10_000, lazy: true });
    return this.result({
      presync: presync.reason === 'no_changes' ? 'nothing to sync' : 'synced',
      rebuilt: { bytes: rebuilt.bytes },
      message: `The parity of level ${p.roleIndex} is on ${this.device} at ${p.targetMountpoint} now. The old parity disk ${p.previousDevice} is unmounted from ${p.mountpoint} and unchanged: keep it until you are satisfied.`,
    });
  }

  private async replaceData() {
    const { ctx, p } = this;
    const lastDiff = readParityState(ctx.db).lastDiff;
    await setBranchMode(ctx.runner, ctx.paths, p.mountpoint, 'RO');
    await this.format(p.mountpoint);
    const rebuilt = await this.rebuild(ctx.paths.snapraidConf);
    const verify = await this.check(
      ctx.paths.snapraidConf,
      { disk: this.dataName },
      rebuilt.findings.unrecoverable,
    );

    await this.enter('permissions');
    const permissions = await restoreMetadata(ctx.runner, {
      dir: ctx.paths.real(p.mountpoint),
      files: metadataFiles(ctx.paths, this.dataName),
    });

    await this.enter('switch');
    await this.commit();
    await setBranchMode(ctx.runner, ctx.paths, p.mountpoint, 'RW');

    const prefix = `${this.dataName}/`;
    const notInParity = lastDiff?.changes
      ? [...lastDiff.paths.added, ...lastDiff.paths.updated].filter((x) => x.startsWith(prefix))
      : null;
    const found = {
      restoredFiles: rebuilt.findings.recovered.length,
      unrecoverable: rebuilt.findings.unrecoverable,
      changedSinceLastSync: notInParity,
      checked: { errors: verify.dataErrors + verify.ioErrors + verify.fileErrors },
      permissions: {
        restored: permissions.saved,
        missing: permissions.missing,
        errors: permissions.errors.slice(0, 20),
      },
    };
    let sync: unknown;
    try {
      sync = await this.syncAfter();
    } catch (err) {
      if (err instanceof JobBlocked)
        throw new JobBlocked(
          {
            ...err.error,
            message: `${p.mountpoint} is on ${this.device} now (${found.restoredFiles} files rebuilt${found.unrecoverable.length ? `, ${found.unrecoverable.length} could not be` : ''}); the sync afterwards was blocked: ${err.error.message}`,
          },
          this.result({ ...found, sync: err.result }),
        );
      throw err;
    }
    return this.result({
      ...found,
      sync,
      message: `${p.mountpoint} is on ${this.device} now: ${found.restoredFiles} files rebuilt from parity${found.unrecoverable.length ? `, ${found.unrecoverable.length} could not be (listed in unrecoverable)` : ''}. Files added after the last sync could not come back${notInParity?.length ? ` (known: ${notInParity.length}, listed in changedSinceLastSync)` : ''}.`,
    });
  }

  private async replaceParity() {
    const { ctx, p } = this;
    await this.format(p.mountpoint);
    const rebuilt = await this.rebuild(ctx.paths.snapraidConf);
    await this.check(ctx.paths.snapraidConf, {});
    await this.enter('switch');
    await this.commit();
    return this.result({
      rebuilt: { bytes: rebuilt.bytes },
      message: `The parity of level ${p.roleIndex} is rebuilt on ${this.device} at ${p.mountpoint}.`,
    });
  }

  /** `snapraid fix -d <slot>` (the plan's rebuild command) with the given configuration. */
  private async rebuild(configFile: string): Promise<{ findings: FixFindings; bytes: number }> {
    await this.enter('rebuild');
    const { run, findings } = await this.snapraid(configFile).fix(
      { disk: this.dataName },
      handlers(this.job),
    );
    this.job.pid(null);
    if (run.cancelled) throw new Stopped();
    // a data rebuild that could not recover some files still rebuilt the others (listed in the result)
    if (run.errorLine !== null && !(this.p.kind === 'replace_data' && findings.unrecoverable.length > 0))
      throw failed(run, 'rebuild_failed', 'fix') ?? new AppError(500, 'rebuild_failed', run.errorLine);
    return { findings, bytes: run.progress?.bytesDone ?? 0 };
  }

  /** The sync after a data switch (cancellable: the slot stays on its new disk). */
  private async syncAfter(): Promise<unknown> {
    try {
      const s = await this.sync('sync');
      return { changes: s.changes, bytes: s.bytes, metadata: s.metadata };
    } catch (err) {
      if (err instanceof Stopped) return 'cancelled: run appliance array sync';
      throw err;
    }
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

function toCheckFindings(f: FixFindings) {
  return {
    errors: f.dataErrors + f.ioErrors + f.fileErrors,
    files: f.files.map((x) => `${x.disk}/${x.path}`),
    unrecoverable: f.unrecoverable,
  };
}

/** The boot-persistent mount units follow the rows (outside lab mode and without a root prefix). */
async function updateMountUnits(ctx: AppContext, before: ArraySlot[], after: ArraySlot[]): Promise<void> {
  if (!persistsMountUnits({ labMode: ctx.config.lab.enabled, root: ctx.paths.root })) return;
  const settings = readSettings(ctx.db);
  const pool = (await isPoolMounted(ctx.paths))
    ? {
        createPolicy: settings?.createPolicy ?? 'mfs',
        minFreeSpaceMiB: minFreeSpaceMiB(
          after.map((r) => ({ role: r.role, entry: { sizeBytes: r.sizeBytes ?? 0 } })),
        ),
      }
    : null;
  const units = await replaceMountUnits(
    renderMountUnits(before, { pool }),
    renderMountUnits(after, { pool }),
    {
      runner: ctx.runner,
      log: (message, fields) => ctx.logger.warn(message, fields),
    },
  );
  // the drift watcher knows what the service wrote
  for (const file of units.files) ctx.generated.recordQuietly(file);
  for (const file of units.removed) await ctx.generated.forget(file);
}

/** snapraid.conf rendered from the rows, written and recorded for the drift watcher. */
async function writeArrayConf(ctx: AppContext, rows: ArraySlot[]): Promise<void> {
  const text = await writeSnapraidConf(ctx.paths, rows);
  ctx.generated.recordQuietly(ctx.paths.snapraidConf, text);
}

/**
 * Puts the slot wholly on one side (the core's `settlement`): mounts, the pool branch writable
 * again, snapraid.conf and the mount units as the rows say, the job's own files removed.
 */
async function settle(ctx: AppContext, p: DiskJobParams, side: SlotSide): Promise<void> {
  // a switch stopped half-way: the slot's own mountpoint is the branch again
  if (p.kind === 'upgrade_data')
    await swapBranch(ctx.runner, ctx.paths, stagingMountpoint(p.mountpoint), p.mountpoint);
  const inventory = await ctx.inventory.read();
  await settleSlot(ctx.runner, ctx.paths, inventory, settlement(p, side));
  if (p.kind === 'upgrade_data')
    await fs.rmdir(ctx.paths.real(stagingMountpoint(p.mountpoint))).catch(() => undefined);
  const rows = listSlots(ctx.db);
  const current = await fs.readFile(ctx.paths.snapraidConf, 'utf8').catch(() => null);
  if (current !== arraySnapraidConf(ctx.paths, rows)) await writeArrayConf(ctx, rows);
  await fs.rm(path.join(ctx.paths.stateDir, 'disk-jobs'), { recursive: true, force: true });
  // writable again, unless its disk is missing (then no new file may land in the empty mountpoint)
  if (p.role === 'data')
    await setBranchMode(
      ctx.runner,
      ctx.paths,
      p.mountpoint,
      (await isMountedAt(ctx.paths, p.mountpoint)) ? 'RW' : 'NC',
    );
  const slot = jobSlot(rows, p);
  if (slot) {
    const other =
      side === 'new'
        ? rows.map((r) =>
            r.id === slot.id ? { ...r, fsUuid: p.previousFsUuid, mountpoint: p.mountpoint } : r,
          )
        : rows.map((r) =>
            r.id === slot.id ? { ...r, fsUuid: p.newFsUuid, mountpoint: p.targetMountpoint } : r,
          );
    await updateMountUnits(ctx, other, rows);
  }
}

/** The implementation of both disk job kinds, registered by the feature. */
export function diskJobImplementation(
  ctx: AppContext,
  title: string,
): JobImplementation<DiskJobParams, DiskJobResult> {
  return {
    run: (job, params) => new DiskJobRun(ctx, job, params).execute(),
    async recover(view) {
      const p = view.params;
      if (typeof p.newFsUuid !== 'string')
        return {
          message: `The service stopped during the ${title} (recorded by an older version); it wrote nothing. Send the request again.`,
        };
      const side = slotSide(jobSlot(listSlots(ctx.db), p), p);
      await settle(ctx, p, side);
      return {
        message: interruptedMessage(p, side, view.phase),
        result: {
          kind: p.kind,
          slotOn: side,
          device: side === 'new' ? p.device : p.previousDevice,
          at: isoMillis(ctx.clock.now()),
        },
        details: { slotOn: side, mountpoint: side === 'new' ? p.targetMountpoint : p.mountpoint },
      };
    },
  };
}
