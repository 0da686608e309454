/**
 * `disk.upgrade` (03 §12): a data slot copied onto a larger disk (presync → freeze → format at the
 * staging mountpoint → copy → audit check → switch → sync), or a parity level rebuilt onto one at
 * a new mountpoint (presync → format → rebuild → check → switch).
 */
import fs from 'node:fs/promises';
import { AppError } from '@appliance/common';
import { jobConfMembers, stagingMountpoint } from '../core/disk-job.ts';
import { writeSnapraidConf } from '../node/array-setup.ts';
import { copyTree } from '../node/copy.ts';
import { mountByUuid, remount, unmount } from '../node/disk-tools.ts';
import { setBranchMode, swapBranch } from '../node/pool-control.ts';
import type { DiskJobResult } from './definitions.ts';
import { type DiskJobRun, Stopped } from './run.ts';
import { writeArrayConf } from './settle.ts';

/** The data slot frozen read-only with nothing left to sync (a write that slipped in is synced first). */
async function freeze(run: DiskJobRun, slotAt: string): Promise<void> {
  const { ports, p } = run;
  for (let attempt = 1; ; attempt++) {
    await setBranchMode(ports.runner, ports.paths, p.mountpoint, 'RO');
    try {
      await remount(ports.runner, slotAt, 'ro');
    } catch (err) {
      throw new AppError(
        409,
        'disk_busy',
        `${p.mountpoint} could not be made read-only: a file there is open for writing (${err instanceof Error ? err.message.slice(0, 200) : String(err)}). Close it (stop the app or the client writing there), then send the request again. Nothing was written.`,
      );
    }
    const changes = await run.slotChanges();
    if (changes.count === 0) return;
    if (attempt >= 3)
      throw new AppError(
        409,
        'disk_busy',
        `Files on ${p.mountpoint} kept changing between the syncs (${changes.paths.slice(0, 3).join(', ')}); send the request again once nothing writes there. Nothing was written.`,
      );
    // a write slipped in between the sync and the freeze: sync it, then freeze again
    await remount(ports.runner, slotAt, 'rw');
    await run.sync('presync');
    await run.enter('freeze');
  }
}

/** rsync from the frozen slot onto the new disk at its staging mountpoint. */
async function copy(run: DiskJobRun, from: string, to: string) {
  const { ports, p, job } = run;
  await run.enter('copy');
  const copied = await copyTree(
    ports.runner,
    { from, to },
    {
      signal: job.signal,
      onSpawn: (pid) => job.pid(pid),
      onOutput: (line) => job.output(line),
      onProgress: (c) =>
        job.progress({
          percent: c.percent,
          bytesDone: c.bytesDone,
          bytesTotal: c.bytesTotal,
          ...(c.etaSeconds !== null ? { etaSeconds: c.etaSeconds } : {}),
          filesLeft: c.filesLeft,
          filesTotal: c.filesTotal,
        }),
    },
  );
  job.pid(null);
  if (copied.cancelled) throw new Stopped();
  if (copied.errorLine !== null)
    throw new AppError(500, 'copy_failed', `rsync could not copy ${p.mountpoint}: ${copied.errorLine}`, {
      exitCode: copied.exitCode,
    });
  return copied;
}

export async function upgradeData(run: DiskJobRun): Promise<DiskJobResult> {
  const { ports, p } = run;
  const { runner, paths } = ports;
  const presync = await run.sync('presync');

  await run.enter('freeze');
  const slotAt = paths.real(p.mountpoint);
  await freeze(run, slotAt);

  const staging = stagingMountpoint(p.mountpoint);
  await run.format(staging);
  const copied = await copy(run, slotAt, paths.real(staging));

  const conf = run.jobConf();
  await writeSnapraidConf(paths, jobConfMembers(ports.slots.listSlots(), p)!, conf);
  const verify = await run.check(conf, { disk: run.dataName, auditOnly: true });

  await run.enter('switch');
  // The pool serves the slot from the new disk (its staging mount, checked identical) while the
  // slot's mountpoint changes disks: between the old disk's unmount and the new one's mount
  // /mnt/diskN is an empty directory, and a lookup there would find nothing (issue 32). Each
  // swap is one atomic change of the pool's branches, in the slot's place and with its mode.
  await swapBranch(runner, paths, p.mountpoint, staging);
  // the old disk is read-only: a reader still holding a file open only delays its release
  await unmount(runner, slotAt, { busyWaitMs: 10_000, lazy: true });
  await mountByUuid(runner, paths, { uuid: p.newFsUuid, logical: p.mountpoint, device: run.device });
  await swapBranch(runner, paths, staging, p.mountpoint);
  await unmount(runner, paths.real(staging), { busyWaitMs: 10_000, lazy: true });
  const after = await run.slotChanges();
  if (after.count > 0)
    throw new AppError(
      409,
      'copy_differs',
      `"snapraid diff" on the new disk reports ${after.count} changed or missing file(s) (${after.paths.slice(0, 3).join(', ')}); ${p.mountpoint} was put back on ${p.previousDevice}.`,
      { paths: after.paths },
    );
  await run.commit();
  await setBranchMode(runner, paths, p.mountpoint, 'RW');
  await fs.rmdir(paths.real(staging)).catch(() => undefined);

  const sync = await run.syncAfter();
  return run.result({
    presync: presync.reason === 'no_changes' ? 'nothing to sync' : 'synced',
    copied: { bytes: copied.progress?.bytesDone ?? 0, files: copied.progress?.filesTotal ?? null },
    verified: { errors: verify.dataErrors + verify.ioErrors + verify.fileErrors },
    sync,
    message: `${p.mountpoint} is on ${run.device} now. The old disk ${p.previousDevice} is unmounted and unchanged: keep it until you are satisfied, then reuse it.`,
  });
}

export async function upgradeParity(run: DiskJobRun): Promise<DiskJobResult> {
  const { ports, p } = run;
  const presync = await run.sync('presync');
  await run.format(p.targetMountpoint);
  const conf = run.jobConf();
  await writeSnapraidConf(ports.paths, jobConfMembers(ports.slots.listSlots(), p)!, conf);
  const rebuilt = await run.rebuild(conf);
  await run.check(conf, {});
  await run.enter('switch');
  await run.commit();
  await writeArrayConf(ports, ports.slots.listSlots());
  await unmount(ports.runner, ports.paths.real(p.mountpoint), { busyWaitMs: 10_000, lazy: true });
  return run.result({
    presync: presync.reason === 'no_changes' ? 'nothing to sync' : 'synced',
    rebuilt: { bytes: rebuilt.bytes },
    message: `The parity of level ${p.roleIndex} is on ${run.device} at ${p.targetMountpoint} now. The old parity disk ${p.previousDevice} is unmounted from ${p.mountpoint} and unchanged: keep it until you are satisfied.`,
  });
}
