/**
 * `backup.restore` (issue 23): a whole snapshot of a share or of a stack's app data, or chosen
 * paths of it, into its place or into a new folder. Into its place: the stack is stopped first
 * (and started again after, when it ran), what is there now is moved aside beside itself
 * (`<name>.before-restore-<time>`, never deleted), then restic writes the snapshot's files; if
 * restic fails, what it wrote is removed and the moved-aside files are put back. Nothing is written
 * through a symbolic link: a link on the way to a restored path refuses the restore.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { refuse } from '@appliance/common';
import type { JobHandle, JobImplementation } from '@appliance/jobs';
import type { TreeNode } from '../core/drill.ts';
import { partKey, partLabel, partOfTags, rootsOfTags } from '../core/parts.ts';
import { asideName, includePattern, restoreRoots } from '../core/restore.ts';
import type { Restic } from '../node/restic.ts';
import type { BackupPaths, BackupPorts, Destination } from '../ports.ts';
import { APPDATA_ROOT, onDestination, openPlanForJob, openPlanRestic, watched } from './common.ts';
import type { RestoreParams } from './kinds.ts';

const unsafe = (where: string, why: string) =>
  refuse('restore_path_unsafe', `Restoring files: ${where} ${why}.`, { path: where });

/** Every existing component from `base` (included) down to `target`'s parent is a real folder. */
async function assertNoLinks(paths: BackupPaths, base: string, target: string): Promise<void> {
  const rel = path.relative(base, path.dirname(target));
  const chain = [
    base,
    ...(rel === '' ? [] : rel.split(path.sep).map((_, i, a) => path.join(base, ...a.slice(0, i + 1)))),
  ];
  for (const p of chain) {
    const st = await fs.lstat(p).catch(() => null);
    if (st === null) return;
    const shown = paths.logical(p) ?? p;
    if (st.isSymbolicLink()) throw unsafe(shown, 'is a symbolic link, which is never followed');
    if (!st.isDirectory()) throw unsafe(shown, 'is not a directory');
  }
}

/** Bytes restic has written so far (/proc/<pid>/io), for the progress of a restore. */
async function writtenBy(pid: number): Promise<number | null> {
  const io = await fs.readFile(`/proc/${pid}/io`, 'utf8').catch(() => null);
  const m = io ? /^wchar:\s+(\d+)/m.exec(io) : null;
  return m ? Number(m[1]) : null;
}

const exists = (p: string) =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

async function restoreWithProgress(
  job: JobHandle,
  restic: Restic,
  dest: Destination,
  input: { snapshot: string; target: string; include?: string[] },
  totalBytes: number,
) {
  let pid: number | null = null;
  const timer = setInterval(() => {
    if (pid === null) return;
    void writtenBy(pid).then((w) => {
      if (w === null) return;
      const done = Math.min(w, totalBytes);
      job.progress({
        bytesDone: done,
        bytesTotal: totalBytes,
        percent: totalBytes > 0 ? Math.round((done / totalBytes) * 1000) / 10 : null,
      });
    });
  }, 1_000);
  try {
    return await watched(dest, job, (signal) =>
      restic.restore(input, {
        signal,
        onOutput: (l) => job.output(l),
        onSpawn: (p) => {
          pid = p;
          job.pid(p);
        },
      }),
    );
  } finally {
    clearInterval(timer);
  }
}

/** The handler of `backupRestoreJob` over the ports. */
export function backupRestoreHandler(
  ports: BackupPorts,
): JobImplementation<RestoreParams, Record<string, unknown>> {
  return {
    run: (job, params) =>
      onDestination(params.destination, async (seen) => {
        const { plan, dest, tmp } = await openPlanForJob(ports, job, params.plan, seen);
        try {
          const restic = await openPlanRestic(ports, plan.name, dest.repository(plan.name), tmp.dir);
          try {
            if (!(await restic.exists()))
              throw refuse(
                'snapshot_not_found',
                `Plan ${plan.name} has no repository on "${plan.destination}".`,
              );
            return await restore(ports, job, params, restic, dest);
          } finally {
            await restic.close();
          }
        } finally {
          await tmp.done().catch(() => undefined);
          job.phase('unmount');
          await dest.close();
        }
      }),
  };
}

/** The snapshot the restore names, checked against the part and the chosen paths. */
async function findSnapshot(job: JobHandle, params: RestoreParams, restic: Restic) {
  job.phase('snapshot');
  const { run, snapshots } = await restic.snapshots();
  if (run.errorLine !== null) throw refuse('restore_failed', `restic snapshots failed: ${run.errorLine}`);
  const found = snapshots.filter((s) => s.id.startsWith(params.snapshot));
  if (found.length === 0)
    throw refuse(
      'snapshot_not_found',
      `Plan ${params.plan} has no snapshot ${params.snapshot}: list them (appliance backups snapshots ${params.plan}).`,
      { snapshot: params.snapshot },
    );
  if (found.length > 1)
    throw refuse(
      'snapshot_ambiguous',
      `More than one snapshot starts with ${params.snapshot}: give more of its id.`,
    );
  const snap = found[0]!;
  const holds = partOfTags(snap.tags);
  if (!holds || partKey(holds) !== partKey(params.part))
    throw refuse(
      'snapshot_part_mismatch',
      `Snapshot ${snap.shortId} holds ${holds ? partLabel(holds) : 'nothing of this plan'}, not ${partLabel(params.part)}.`,
      { snapshot: snap.shortId, holds },
    );
  const { run: lsRun, nodes } = await restic.ls(snap.id, { signal: job.signal });
  if (lsRun.errorLine !== null) throw refuse('restore_failed', `restic ls failed: ${lsRun.errorLine}`);
  const byPath = new Set(nodes.map((n) => n.path));
  const missing = params.paths.filter((p) => !byPath.has(p));
  if (missing.length > 0)
    throw refuse(
      'path_not_in_snapshot',
      `Snapshot ${snap.shortId} does not hold ${missing.slice(0, 5).join(', ')}: paths are relative to the snapshot's root, as its file list shows them.`,
      { paths: missing },
    );
  return { snap, nodes };
}

async function restore(
  ports: BackupPorts,
  job: JobHandle,
  params: RestoreParams,
  restic: Restic,
  dest: Destination,
) {
  const { snap, nodes } = await findSnapshot(job, params, restic);
  const roots = restoreRoots({
    part: params.part,
    chosen: params.paths,
    topLevel: nodes.filter((n) => !n.path.includes('/')).map((n) => n.path),
    tagRoots: rootsOfTags(snap.tags),
    appdataRoot: APPDATA_ROOT,
  });
  const inRoots = (n: TreeNode) => roots.some((r) => n.path === r || n.path.startsWith(`${r}/`));
  const totalBytes = nodes
    .filter((n) => n.type === 'file' && inRoots(n))
    .reduce((s, n) => s + (n.size ?? 0), 0);
  const include = params.paths.length > 0 ? roots.map(includePattern) : undefined;
  const paths = ports.paths;
  const base = paths.real(params.part.kind === 'share' ? `/mnt/user/${params.part.name}` : APPDATA_ROOT);

  if (params.folder !== null) {
    const folder = params.folder;
    const target = paths.real(folder);
    const top = paths.real(
      folder.startsWith('/mnt/user/') ? folder.split('/').slice(0, 4).join('/') : APPDATA_ROOT,
    );
    await assertNoLinks(paths, top, target);
    if (await exists(target))
      throw refuse('restore_target_exists', `${folder} already exists: choose a new folder.`, { folder });
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.mkdir(target, { mode: 0o755 });
    job.phase('restore', { cancellable: true });
    const r = await restoreWithProgress(
      job,
      restic,
      dest,
      { snapshot: snap.id, target, ...(include ? { include } : {}) },
      totalBytes,
    );
    if (r.lost)
      throw refuse(
        'restore_failed',
        `The backup disk "${dest.label}" stopped answering during the restore: re-attach it and restore again. What restic wrote is in ${folder}.`,
      );
    if (r.cancelled) return null;
    if (r.errorLine !== null)
      throw refuse('restore_failed', `restic restore failed: ${r.errorLine}. What it wrote is in ${folder}.`);
    return {
      snapshot: snap.shortId,
      part: params.part,
      target: folder,
      restored: roots,
      movedAside: [],
      stackStarted: false,
    };
  }

  // into its place
  const stacks = ports.stacks;
  const stackName = params.part.kind === 'stack' ? params.part.name : null;
  const stackExists = stackName !== null && (await stacks.exists(stackName));
  for (const r of roots) await assertNoLinks(paths, base, path.join(base, r));
  let wasRunning = false;
  let started = false;
  let unpause: (() => void) | null = null;
  if (stackName && stackExists) {
    wasRunning = (await stacks.running(stackName)).length > 0;
    if (wasRunning) {
      job.phase('stop the stack');
      unpause = stacks.pauseWatch(stackName);
      await stacks.stop(stackName).catch((err: unknown) => {
        unpause?.();
        throw err;
      });
    }
  }
  const moved: { from: string; to: string }[] = [];
  const createdHere: string[] = [];
  const now = ports.clock.now();
  try {
    await fs.mkdir(base, { recursive: true });
    job.phase('move aside');
    for (const r of roots) {
      const p = path.join(base, r);
      if (await exists(p)) {
        const dir = path.dirname(p);
        const names = new Set(await fs.readdir(dir));
        const to = path.join(
          dir,
          asideName(path.basename(p), now, (n) => names.has(n)),
        );
        await fs.rename(p, to);
        moved.push({ from: p, to });
      } else createdHere.push(p);
    }
    job.phase('restore', { cancellable: false });
    const r = await restoreWithProgress(
      job,
      restic,
      dest,
      { snapshot: snap.id, target: base, ...(include ? { include } : {}) },
      totalBytes,
    );
    if (r.errorLine !== null || r.lost || r.cancelled) {
      job.phase('undo');
      for (const p of [...moved.map((m) => m.from), ...createdHere])
        await fs.rm(p, { recursive: true, force: true });
      for (const m of moved.reverse()) await fs.rename(m.to, m.from);
      throw refuse(
        'restore_failed',
        `${r.lost ? `The backup disk "${dest.label}" stopped answering during the restore (re-attach it and restore again)` : `restic restore failed: ${r.errorLine ?? 'stopped'}`}. Nothing changed: the files that were there are back in place.`,
      );
    }
  } finally {
    if (stackName && wasRunning) {
      job.phase('start the stack');
      await stacks.start(stackName).then(
        () => {
          started = true;
        },
        (err: unknown) => job.output(`the stack ${stackName} did not start: ${String(err)}`),
      );
    }
    unpause?.();
  }
  const logical = (p: string) => paths.logical(p) ?? p;
  return {
    snapshot: snap.shortId,
    part: params.part,
    target: logical(base),
    restored: roots,
    movedAside: moved.map((m) => ({ path: logical(m.from), to: logical(m.to) })),
    stackStarted: started,
  };
}
