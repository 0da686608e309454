/**
 * `backup.drill` (issue 23): proves a plan's backups can be restored. `restic check` reading one
 * tenth of the data packs (a different tenth each drill, so ten drills read everything), then the
 * latest snapshot of each part restored into a scratch folder on the destination with `--verify`
 * (every file read back against the snapshot's own content hashes) and compared with the
 * snapshot's file list: every entry, its type, size, permissions and owner. A failed drill raises
 * `restore_drill_failed`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { isoMillis, refuse } from '@appliance/common';
import type { JobHandle, JobImplementation } from '@appliance/jobs';
import { compareTrees, drillSample, type TreeDifference } from '../core/drill.ts';
import * as backupEvents from '../core/messages.ts';
import { type PartRef, partKey, partLabel, partOfTags, partsOf } from '../core/parts.ts';
import { drillScratchPath } from '../core/plan.ts';
import { includePattern } from '../core/restore.ts';
import type { Restic, ResticSnapshot } from '../node/restic.ts';
import { readTree } from '../node/tree.ts';
import type { BackupPorts, Destination } from '../ports.ts';
import { onDestination, openPlanForJob, openPlanRestic, watched } from './common.ts';
import type { RunParams } from './kinds.ts';

/** Check groups: drill n reads data packs group (n mod 10) + 1 of 10. */
export const CHECK_GROUPS = 10;
/** Scratch space left free on the destination (the sample shrinks to fit). */
const SCRATCH_RESERVE = 0.1;

export interface DrillPartResult {
  part: PartRef;
  snapshot: string;
  whole: boolean;
  files: number;
  bytes: number;
  differences: TreeDifference[];
  error: string | null;
}

/** Filesystems that keep no Unix owners or permission bits (the drill does not compare them there). */
const NO_UNIX_METADATA = new Set(['exfat', 'vfat']);

const lostSentence = (label: string) =>
  `the backup disk "${label}" stopped answering: re-attach it and run the drill again`;

/** The latest snapshot of each part the plan backs up. */
async function latestOfParts(
  restic: Restic,
  plan: { name: string; destination: string } & Parameters<typeof partsOf>[0],
) {
  const { run, snapshots } = await restic.snapshots();
  if (run.errorLine !== null) throw refuse('drill_failed', `restic snapshots failed: ${run.errorLine}`);
  const wanted = new Set(partsOf(plan).map(partKey));
  const latest = new Map<string, ResticSnapshot>();
  for (const s of [...snapshots].sort((a, b) => Date.parse(a.time) - Date.parse(b.time))) {
    const part = partOfTags(s.tags);
    if (part && wanted.has(partKey(part))) latest.set(partKey(part), s);
  }
  if (latest.size === 0)
    throw refuse(
      'no_snapshots',
      `Plan ${plan.name} has no snapshot in its repository on "${plan.destination}" yet: run a backup first.`,
    );
  return latest;
}

/** One part's latest snapshot restored (a sample that fits) with --verify and compared; null: cancelled. */
async function drillPart(
  job: JobHandle,
  restic: Restic,
  dest: Destination,
  scratch: string,
  key: string,
  snap: ResticSnapshot,
): Promise<DrillPartResult | null> {
  const part = partOfTags(snap.tags)!;
  job.phase(`restore ${partLabel(part)}`, { cancellable: true });
  const { run: lsRun, nodes } = await restic.ls(snap.id, { signal: job.signal });
  if (lsRun.cancelled) return null;
  if (lsRun.errorLine !== null)
    return {
      part,
      snapshot: snap.shortId,
      whole: false,
      files: 0,
      bytes: 0,
      differences: [],
      error: `restic ls: ${lsRun.errorLine}`,
    };
  const free = await fs.statfs(scratch);
  const budget = Math.max(0, Math.floor(free.bavail * free.bsize * (1 - SCRATCH_RESERVE)));
  const sample = drillSample(nodes, budget, job.id);
  const target = path.join(scratch, key.replace(':', '-'));
  await fs.mkdir(target, { mode: 0o700 });
  const restored = await watched(dest, job, (signal) =>
    restic.restore(
      {
        snapshot: snap.id,
        target,
        verify: true,
        ...(sample.whole ? {} : { include: sample.paths.map(includePattern) }),
      },
      { signal, onOutput: (l) => job.output(l), onSpawn: (p) => job.pid(p) },
    ),
  );
  if (restored.cancelled && !restored.lost) return null;
  const unix = !NO_UNIX_METADATA.has(dest.filesystem ?? '');
  const differences = restored.errorLine
    ? []
    : compareTrees(nodes, await readTree(target), {
        modes: unix,
        owners: unix,
        ...(sample.whole ? {} : { only: sample.paths }),
      });
  await fs.rm(target, { recursive: true, force: true });
  return {
    part,
    snapshot: snap.shortId,
    whole: sample.whole,
    files: sample.whole ? nodes.filter((n) => n.type === 'file').length : sample.paths.length,
    bytes: sample.bytes,
    differences: differences.slice(0, 50),
    error: restored.lost
      ? lostSentence(dest.label)
      : restored.errorLine
        ? `restic restore --verify: ${restored.errorLine}`
        : differences.length > 0
          ? `${differences.length} difference(s) between the restored files and the snapshot, e.g. ${differences[0]!.path}: ${differences[0]!.what}`
          : null,
  };
}

async function drill(
  ports: BackupPorts,
  job: JobHandle,
  params: RunParams,
  seen: { dest: Destination | null },
) {
  const { plan, dest, tmp } = await openPlanForJob(ports, job, params.plan, seen);
  const scratch = ports.paths.real(drillScratchPath(dest.mountpoint, job.id));
  const drillNumber = (await ports.store.readState(plan.name))?.drillCount ?? 0;
  const subset = `${(drillNumber % CHECK_GROUPS) + 1}/${CHECK_GROUPS}`;
  let check: { subset: string; error: string | null } = { subset, error: null };
  const parts: DrillPartResult[] = [];
  try {
    const restic = await openPlanRestic(ports, plan.name, dest.repository(plan.name), tmp.dir);
    try {
      if (!(await restic.exists()))
        throw refuse(
          'no_snapshots',
          `Plan ${plan.name} has no repository on "${plan.destination}" yet: run a backup first.`,
        );
      await restic.unlockStale();
      job.phase(`check ${subset}`, { cancellable: true });
      const c = await watched(dest, job, (signal) =>
        restic.check(subset, { signal, onOutput: (l) => job.output(l), onSpawn: (p) => job.pid(p) }),
      );
      if (c.cancelled && !c.lost) return null;
      check = { subset, error: c.lost ? lostSentence(dest.label) : c.errorLine };
      const latest = await latestOfParts(restic, plan);
      await fs.mkdir(scratch, { recursive: true, mode: 0o700 });
      for (const [key, snap] of latest) {
        if (job.signal.aborted) return null;
        const r = await drillPart(job, restic, dest, scratch, key, snap);
        if (r === null) return null;
        parts.push(r);
      }
    } finally {
      await restic.close();
    }
  } finally {
    await fs.rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    await tmp.done().catch(() => undefined);
    job.phase('unmount');
    await dest.close();
  }
  const reasons = [
    ...(check.error ? [`restic check --read-data-subset ${check.subset}: ${check.error}`] : []),
    ...parts.filter((p) => p.error).map((p) => `${partLabel(p.part)}: ${p.error}`),
  ];
  if (reasons.length > 0)
    throw refuse('drill_failed', `The restore drill of plan ${plan.name} failed: ${reasons.join('; ')}.`, {
      check,
      parts,
    });
  return { check, parts };
}

/** The handler of `backupDrillJob` over the ports. */
export function backupDrillHandler(
  ports: BackupPorts,
): JobImplementation<RunParams, Record<string, unknown>> {
  return {
    run: (job, params) => onDestination(params.destination, (seen) => drill(ports, job, params, seen)),
    async after(view) {
      const params = view.params;
      const at = view.endedAt ?? isoMillis(ports.clock.now());
      await ports.store
        .recordDrill(params.plan, at, view.id, view.state)
        .catch((err: unknown) => ports.logger.error('drill state not recorded', { error: String(err) }));
      if (view.state !== 'failed') return;
      const reason =
        view.error?.message.replace(/^The restore drill of plan \S+ failed: /, '').replace(/\.$/, '') ??
        'failed';
      try {
        await ports.events.raise(
          backupEvents.drillFailed({ plan: params.plan, reason, scheduled: view.trigger === 'schedule' }),
        );
      } catch (err) {
        ports.logger.error('drill event not raised', { error: String(err) });
      }
    },
  };
}
