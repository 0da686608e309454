/**
 * One run of a disk job: its phases (the core's list, each entered after a cancel check), the
 * re-check before any write, and the steps every kind shares (format, sync, diff, check, rebuild,
 * the switch). The slot's row is the one point of truth: the switch records it in one
 * transaction, and until then the slot is on its old disk — a cancel, a failure or a restart
 * before it puts everything back there (`settle`), after it forward. The four kinds are in
 * `upgrade.ts` and `replace.ts`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError, type DiskInventoryEntry, diskLockKey } from '@appliance/common';
import { type JobHandle, JobBlocked } from '@appliance/jobs';
import {
  type DiskJobParams,
  type DiskJobPhase,
  judgeCheck,
  keptOldMessage,
  phaseSpec,
  snapraidDiskName,
  stagingMountpoint,
  switchedRow,
  jobSlot,
} from '../core/disk-job.ts';
import { doesNotFit } from '../core/fit.ts';
import { checkReplaceRequest } from '../core/replace-request.ts';
import { toAppError } from '../core/to-app-error.ts';
import type { ArraySlot } from '../core/types.ts';
import { checkUpgradeRequest } from '../core/upgrade-request.ts';
import { guardSlotMountpoint } from '../node/array-setup.ts';
import { formatDisk, mountByUuid } from '../node/disk-tools.ts';
import { measureSlot } from '../node/slot-measurements.ts';
import type { DiskJobPorts, FixFindings, SnapraidHandlers, SnapraidRun, SyncOutcome } from '../ports.ts';
import type { DiskJobResult } from './definitions.ts';
import { jobDir, labPause, settle, strayEntries, updateMountUnits } from './settle.ts';

/** Thrown inside a run when a cancel (or shutdown) arrived: the slot goes back to its old disk. */
export class Stopped extends Error {}

interface PhaseTime {
  phase: DiskJobPhase;
  seconds: number;
}

/** A snapraid run's handlers for a job: output lines, the process id, progress. */
export function handlers(job: JobHandle): SnapraidHandlers {
  return {
    signal: job.signal,
    onOutput: (line) => job.output(line),
    onSpawn: (pid) => job.pid(pid),
    onProgress: (p) => job.progress({ ...p }),
  };
}

/** A snapraid run that failed (not cancelled) ends the job with snapraid's own error line. */
export function failed(run: SnapraidRun, code: string, what: string): AppError | null {
  if (run.cancelled || run.errorLine === null) return null;
  return new AppError(500, code, `snapraid ${what} failed: ${run.errorLine}`, {
    exitCode: run.exitCode,
    snapraid: run.errorLine,
  });
}

const round = (x: number) => Math.round(x * 10) / 10;

function toCheckFindings(f: FixFindings) {
  return {
    errors: f.dataErrors + f.ioErrors + f.fileErrors,
    files: f.files.map((x) => `${x.disk}/${x.path}`),
    unrecoverable: f.unrecoverable,
  };
}

export class DiskJobRun {
  private readonly phases: PhaseTime[] = [];
  private phaseStarted = Date.now();
  /** Whether the switch is recorded (the slot's row names the new disk). */
  switched = false;
  private entry: DiskInventoryEntry | null = null;

  readonly ports: DiskJobPorts;
  readonly job: JobHandle;
  readonly p: DiskJobParams;

  constructor(ports: DiskJobPorts, job: JobHandle, params: DiskJobParams) {
    this.ports = ports;
    this.job = job;
    this.p = params;
  }

  get dataName() {
    return snapraidDiskName(this.p.role, this.p.roleIndex);
  }

  /** The new disk's kernel path (found again by the re-check). */
  get device(): string {
    return this.entry!.device;
  }

  /** Enters a phase of the core's list (stopping first when a cancel arrived), then the lab pause. */
  async enter(name: DiskJobPhase): Promise<void> {
    this.closePhase();
    if (this.job.signal.aborted) throw new Stopped();
    this.job.phase(name, { cancellable: phaseSpec(this.p.kind, name).cancellable });
    this.phases.push({ phase: name, seconds: -1 });
    this.phaseStarted = Date.now();
    await labPause(this.ports, this.job, name);
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

  snapraid(configFile = this.ports.paths.snapraidConf) {
    return this.ports.snapraid(configFile);
  }

  /** The job's own snapraid.conf (the slot at the staging path / the new parity mountpoint). */
  jobConf(): string {
    return path.join(jobDir(this.ports), 'snapraid.conf');
  }

  async execute(steps: (run: DiskJobRun) => Promise<DiskJobResult>): Promise<DiskJobResult> {
    const { ports, p } = this;
    try {
      const result = await ports.locks.tryRun(
        diskLockKey(p.device),
        () => new AppError(409, 'disk_busy', `Another operation is using ${p.device}; nothing was written.`),
        async () => {
          await this.enter('check');
          this.entry = await this.recheck();
          return steps(this);
        },
      );
      await fs.rm(path.dirname(this.jobConf()), { recursive: true, force: true });
      return result;
    } catch (err) {
      if (this.switched) {
        // the slot is on the new disk: finish what the switch left and say so
        await settle(ports, p, 'new').catch((e: unknown) => this.log('settle after switch failed', e));
        if (err instanceof Stopped)
          return this.result({
            stoppedAfterSwitch: true,
            message: `${p.targetMountpoint} is on ${this.entry?.device ?? p.device} now (the switch is recorded); the sync after it was stopped: run a parity sync (appliance array sync).`,
          });
        if (err instanceof JobBlocked) throw err;
        const why = err instanceof AppError ? err.message : 'see the service log';
        if (!(err instanceof AppError)) this.log('disk job failed after its switch', err);
        throw new AppError(
          500,
          err instanceof AppError ? err.code : 'internal',
          `${p.targetMountpoint} is on ${p.device} now (the switch is recorded), but the work after it failed: ${why} Run a parity sync (appliance array sync).`,
          err instanceof AppError ? err.details : undefined,
        );
      }
      await settle(ports, p, 'old').catch((e: unknown) => this.log('settle failed', e));
      if (err instanceof Stopped) return { kept: 'old', message: keptOldMessage(p), phases: this.timings() };
      if (err instanceof AppError || err instanceof JobBlocked) throw err;
      this.log('disk job failed', err);
      throw new AppError(
        500,
        'disk_job_failed',
        `The disk ${p.kind.startsWith('upgrade') ? 'upgrade' : 'replace'} failed (${err instanceof Error ? err.message : String(err)}); ${keptOldMessage(p)} Fix the cause (see the service log) and send the same request again.`,
      );
    }
  }

  private log(message: string, err: unknown) {
    this.ports.log.error(message, { jobId: this.job.id, error: String(err) });
  }

  result(extra: Record<string, unknown>): DiskJobResult {
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

  /**
   * Before any write: a fresh inventory and rows, the replacement found again (by-id name, else
   * its kernel path), every check of the request again.
   */
  private async recheck(): Promise<DiskInventoryEntry> {
    const { ports, p } = this;
    const inventory = await ports.inventory.read();
    const entry = p.byIdName
      ? inventory.disks.find((d) => d.byIdName === p.byIdName)
      : inventory.disks.find((d) => d.device === p.device);
    if (!entry)
      throw new AppError(
        409,
        'unmanaged_device',
        `The new disk ${p.device} is no longer attached; nothing was written.`,
      );
    const rows = ports.slots.listSlots();
    const request = { mountpoint: p.mountpoint, device: entry.device, filesystem: p.filesystem };
    const common = {
      request,
      rows,
      inventory,
      externals: ports.slots.listExternals(),
      runningDiskJobId: null,
    };
    const confirmation = `ERASE ${entry.device}`;
    if (p.kind === 'upgrade_data' || p.kind === 'upgrade_parity') {
      const checked = checkUpgradeRequest({
        ...common,
        measurements: await measureSlot(ports.paths, p.mountpoint),
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
        strayEntries: p.role === 'data' ? await strayEntries(ports, p.mountpoint) : [],
      });
      if (checked.refusal) throw toAppError(checked.refusal);
    }
    return entry;
  }

  async format(at: string | null): Promise<void> {
    const { ports, p } = this;
    await this.enter('format');
    await formatDisk(ports.runner, {
      device: this.device,
      filesystem: p.filesystem,
      label: p.label,
      uuid: p.newFsUuid,
    });
    // a new slot mountpoint (a parity upgrade's) refuses writes before the disk goes over it
    if (at !== null && at !== stagingMountpoint(p.mountpoint))
      await guardSlotMountpoint(
        { runner: ports.runner, paths: ports.paths, log: (m, f) => ports.log.warn(m, f) },
        at,
      );
    if (at !== null)
      await mountByUuid(ports.runner, ports.paths, { uuid: p.newFsUuid, logical: at, device: this.device });
  }

  /** A disk job's sync (before: only when something waits; after: always), guard included. */
  async sync(phase: 'presync' | 'sync'): Promise<SyncOutcome> {
    await this.enter(phase);
    const outcome = await this.ports.parity.sync(this.job, {
      phase,
      ...(phase === 'presync' ? { onlyIfChanged: true } : {}),
    });
    if (outcome === null) throw new Stopped();
    return outcome;
  }

  /** The files `snapraid diff` finds changed on this slot's SnapRAID disk (names, at most 20, and the count). */
  async slotChanges(): Promise<{ count: number; paths: string[] }> {
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

  async check(
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
  async commit(): Promise<ArraySlot> {
    const { ports, p } = this;
    await labPause(ports, this.job, 'switch:commit');
    const before = ports.slots.listSlots();
    const slot = jobSlot(before, p);
    if (!slot)
      throw new AppError(
        409,
        'disk_slot_not_found',
        `The slot ${p.mountpoint} is gone; nothing was recorded.`,
      );
    const next = switchedRow(slot, p, this.entry!);
    await ports.slots.recordSwitch({
      slotId: slot.id,
      next,
      target: p.mountpoint,
      details: {
        jobId: this.job.id,
        kind: p.kind,
        from: { device: p.previousDevice, fsUuid: p.previousFsUuid, mountpoint: p.mountpoint },
        to: { device: next.device, fsUuid: next.fsUuid, mountpoint: next.mountpoint },
      },
    });
    this.switched = true;
    await updateMountUnits(ports, before, ports.slots.listSlots());
    await labPause(ports, this.job, 'switch:recorded');
    return next;
  }

  /** `snapraid fix -d <slot>` (the plan's rebuild command) with the given configuration. */
  async rebuild(configFile: string): Promise<{ findings: FixFindings; bytes: number }> {
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
  async syncAfter(): Promise<unknown> {
    try {
      const s = await this.sync('sync');
      return { changes: s.changes, bytes: s.bytes, metadata: s.metadata };
    } catch (err) {
      if (err instanceof Stopped) return 'cancelled: run appliance array sync';
      throw err;
    }
  }
}
