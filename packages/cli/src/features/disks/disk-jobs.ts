/**
 * `appliance array upgrade|replace` (issue 21): the plan first (steps, warnings, estimate), then
 * the typed confirmation (`ERASE <device>`; `--confirm` for scripts), then the job, followed with a
 * progress bar (phase, percent, bytes, ETA) until it ends. `upgrade-plan` / `replace-plan` show the
 * plan alone and change nothing.
 */
import type { ResponseOf } from '@appliance/client';
import type { Command } from 'commander';
import type { App } from '../../framework/command.ts';
import { confirmPhrase } from '../../framework/confirm.ts';
import { UsageError } from '../../framework/exit.ts';
import { fields, iec } from '../../framework/format.ts';
import { followJob, type Job, jobHelp } from '../../framework/jobs.ts';
import { oneOf } from '../../framework/lookup.ts';
import type { Ctx } from '../../framework/context.ts';
import { jobExit, jobText } from '../jobs/index.ts';

const FILESYSTEMS = ['xfs', 'ext4', 'btrfs'] as const;

type Plan = ResponseOf<'post', '/disks/array/upgrade/plan'> & { rebuildCommand?: string };

/** A plan in words: the slot, the disks, what it takes, the steps and the warnings. */
export function planText(plan: Plan): string {
  const replace = plan.rebuildCommand !== undefined;
  const rows: Array<[string, string | null]> = [
    ['slot', `${plan.mountpoint} (${plan.role} ${plan.roleIndex})`],
    replace
      ? ['failed disk', `${plan.previousDevice} as recorded (${iec(plan.previousSizeBytes)}), not attached`]
      : [
          'from',
          `${plan.previousDevice} (${iec(plan.previousSizeBytes)}${plan.previousUsedBytes !== null ? `, ${iec(plan.previousUsedBytes)} used` : ''})`,
        ],
    ['to', `${plan.replacementDevice} (${iec(plan.sizeBytes)}${plan.model ? `, ${plan.model}` : ''})`],
    ['filesystem', plan.filesystem],
  ];
  if (plan.newMountpoint !== null) rows.push(['new mountpoint', plan.newMountpoint]);
  if (replace) rows.push(['rebuild', plan.rebuildCommand ?? null]);
  rows.push(
    [
      'reads',
      `${iec(plan.estimate.bytesToCopy)} ×${plan.estimate.passes}, about ${Math.ceil(plan.estimate.seconds / 60)} min`,
    ],
    ['confirmation', plan.confirmation],
  );
  return (
    fields(rows) +
    `Steps:\n${plan.steps.map((s, i) => `  ${i + 1}. ${s}\n`).join('')}` +
    (plan.warnings.length
      ? `Warnings:\n${plan.warnings.map((w) => `  ${w.code}: ${w.message}\n`).join('')}`
      : '')
  );
}

interface Options {
  mountpoint: string;
  device: string;
  filesystem?: string;
  confirm?: string;
  wait: boolean;
}

/** What a finished disk job did, in a sentence or two. */
export function outcomeText(job: Job): string {
  const r = (job.result ?? {}) as {
    message?: string;
    unrecoverable?: string[];
    changedSinceLastSync?: string[] | null;
    permissions?: { restored: boolean; missing: number };
    previousDevice?: string;
  };
  let text = `${r.message ?? `The ${job.type} job succeeded.`}\n`;
  if (r.permissions && !r.permissions.restored)
    text +=
      'Owners and permissions were not restored: no saved metadata for this disk (it is saved after each sync).\n';
  if (r.unrecoverable?.length)
    text += `Could not be rebuilt:\n${r.unrecoverable.map((f) => `  ${f}\n`).join('')}`;
  if (r.changedSinceLastSync?.length)
    text += `Added or changed after the last sync (not in parity):\n${r.changedSinceLastSync.map((f) => `  ${f}\n`).join('')}`;
  return text;
}

async function runDiskJob(ctx: Ctx, kind: 'upgrade' | 'replace', o: Options): Promise<void> {
  const filesystem = oneOf('--filesystem', o.filesystem, FILESYSTEMS);
  if (!/^\/dev\//.test(o.device))
    throw new UsageError(`--device takes a disk such as /dev/sdz, not "${o.device}"`);
  const planBody = { mountpoint: o.mountpoint, device: o.device, ...(filesystem ? { filesystem } : {}) };
  const plan: Plan =
    kind === 'upgrade'
      ? await ctx.client.post('/disks/array/upgrade/plan', { body: planBody })
      : await ctx.client.post('/disks/array/replace/plan', { body: planBody });
  if (!ctx.json) ctx.io.stderr.write(planText(plan));
  const confirmation = await confirmPhrase(ctx.io, {
    given: o.confirm,
    action: `erase ${plan.replacementDevice}`,
    prepare: async () => ({
      expected: plan.confirmation,
      description: `This ERASES ${plan.replacementDevice}${plan.currentFilesystem ? ` (it holds ${plan.currentFilesystem}${plan.currentLabel ? ` "${plan.currentLabel}"` : ''})` : ''}.`,
    }),
  });
  const body = {
    mountpoint: plan.mountpoint,
    device: plan.replacementDevice,
    filesystem: plan.filesystem,
    confirmation,
  };
  const start = async (): Promise<Job> => {
    const accepted =
      kind === 'upgrade'
        ? await ctx.client.post('/disks/array/upgrade', {
            body: { ...body, newMountpoint: plan.newMountpoint },
          })
        : await ctx.client.post('/disks/array/replace', { body });
    return ctx.client.get('/jobs/{id}', { params: { id: accepted.jobId } });
  };
  if (!o.wait) {
    const job = await start();
    return ctx.out(
      job,
      () => `Started the disk ${kind}: job ${job.id} (appliance jobs show ${job.id} --follow).\n`,
    );
  }
  const job = await followJob(ctx, { what: `the disk ${kind}`, start });
  ctx.out(job, () => (job.state === 'succeeded' ? outcomeText(job) : jobText(job)));
  jobExit(job);
}

const slotOptions = (cmd: Command) =>
  cmd
    .requiredOption('--mountpoint <slot>', 'the slot, e.g. /mnt/disk2 or /mnt/parity1')
    .requiredOption('--device <device>', 'the new disk, e.g. /dev/sdz')
    .option('--filesystem <fs>', `${FILESYSTEMS.join(' | ')} (data disks; default the slot's own)`);

/** Registers the disk job commands under `appliance array`. */
export function registerDiskJobs(array: Command, app: App): void {
  slotOptions(
    array
      .command('upgrade')
      .description(
        'move a data or parity slot onto another (larger) disk: copy or rebuild, verify, switch (typed confirmation)',
      ),
  )
    .option('--confirm <phrase>', 'the confirmation phrase for scripts, e.g. "ERASE /dev/sdz"')
    .option('--no-wait', 'print the job and return at once')
    .addHelpText(
      'after',
      `\nA data disk is copied (rsync) while the pool keeps serving it read-only, checked against\nSnapRAID's hashes, then switched; the old disk is left unmounted and unchanged. A parity disk is\nrebuilt at a new mountpoint while the array keeps the old one, checked, then switched.\n${jobHelp(
        'the phase (check, presync, freeze, format, copy/rebuild, verify, switch, sync), percent, bytes and ETA',
        'disk.upgrade /mnt/disk2: copy 42% · 1.2 GiB of 2.8 GiB · ETA 3m 10s, 1m 05s',
      )}`,
    )
    .action(app.action<Options>((ctx, o) => runDiskJob(ctx, 'upgrade', o)));

  slotOptions(
    array
      .command('replace')
      .description('rebuild a failed (missing) disk from parity onto a new disk (typed confirmation)'),
  )
    .option('--confirm <phrase>', 'the confirmation phrase for scripts, e.g. "ERASE /dev/sdz"')
    .option('--no-wait', 'print the job and return at once')
    .addHelpText(
      'after',
      `\nFormats the new disk, mounts it at the slot, runs "snapraid fix" and "snapraid check" on it,\nputs back owners, permissions and extended attributes as of the last sync, records the disk\nand syncs. Files added after the last sync cannot come back; the result lists what could not.\n${jobHelp(
        'the phase (check, format, rebuild, verify, permissions, switch, sync), percent, bytes and ETA',
        'disk.replace /mnt/disk2: rebuild 42% · 1.2 GiB · ETA 3m 10s, 1m 05s',
      )}`,
    )
    .action(app.action<Options>((ctx, o) => runDiskJob(ctx, 'replace', o)));

  slotOptions(
    array.command('replace-plan').description('preview replacing a failed disk (changes nothing)'),
  ).action(
    app.action<Options>(async (ctx, o) => {
      const filesystem = oneOf('--filesystem', o.filesystem, FILESYSTEMS);
      const plan = await ctx.client.post('/disks/array/replace/plan', {
        body: { mountpoint: o.mountpoint, device: o.device, ...(filesystem ? { filesystem } : {}) },
      });
      ctx.out(plan, () => planText(plan));
    }),
  );
}
