import type { Register } from '../../framework/command.ts';
import { collect } from '../../framework/command.ts';
import { confirmPhrase } from '../../framework/confirm.ts';
import { ApiError } from '@appliance/client';
import { UsageError } from '../../framework/exit.ts';
import { fields, iec, table } from '../../framework/format.ts';
import { oneOf } from '../../framework/lookup.ts';
import { progressHelp, watchProgress } from '../../framework/progress.ts';
import { planText, registerDiskJobs } from './disk-jobs.ts';

const FILESYSTEMS = ['xfs', 'ext4', 'btrfs'] as const;
const POLICIES = ['mfs', 'lfs', 'ff', 'epmfs', 'mspmfs'] as const;

interface DiskEntry {
  device: string;
  sizeBytes: number;
  model: string | null;
  filesystem: string | null;
  label: string | null;
  partitions: Array<{ device: string; filesystem: string | null; label: string | null; sizeBytes: number }>;
  mountpoints: string[];
  boot: boolean;
  arrayMountpoint: string | null;
  externalLabel: string | null;
  weakIdentity: boolean;
  foreignStick: boolean;
}

/** What is on a disk, in words: "xfs "media"", "2 partitions: ext4 "old", vfat", "blank". */
export function contents(d: {
  filesystem: string | null;
  label: string | null;
  partitions: Array<{ filesystem: string | null; label: string | null }>;
  mountpoints: string[];
}): string {
  const fsText = (fs: string | null, label: string | null) =>
    `${fs ?? 'unknown'}${label ? ` "${label}"` : ''}`;
  let text = 'blank';
  if (d.filesystem) text = fsText(d.filesystem, d.label);
  else if (d.partitions.length > 0)
    text = `${d.partitions.length} partition${d.partitions.length > 1 ? 's' : ''}: ${d.partitions
      .map((p) => (p.filesystem ? fsText(p.filesystem, p.label) : 'no filesystem'))
      .join(', ')}`;
  return d.mountpoints.length > 0 ? `${text}, mounted at ${d.mountpoints.join(', ')}` : text;
}

function use(d: DiskEntry): string {
  if (d.boot) return 'boot disk';
  if (d.arrayMountpoint) return `array ${d.arrayMountpoint}`;
  if (d.externalLabel) return `external "${d.externalLabel}"`;
  if (d.foreignStick) return 'Unraid flash drive';
  return 'free';
}

/** The disks to be erased, as the confirmation shows them. */
export function eraseTable(disks: DiskEntry[]): string {
  return table(
    ['device', 'size', 'model', 'label', 'contents'],
    disks.map((d) => [d.device, iec(d.sizeBytes), d.model, d.label, contents(d)]),
  );
}

/** The role of each `--parity/--data/--cache DEVICE[:FS]`. */
function members(o: { parity: string[]; data: string[]; cache?: string }) {
  const parse = (role: 'parity' | 'data' | 'cache', text: string) => {
    const [device, fs] = text.split(':');
    if (!device?.startsWith('/dev/'))
      throw new UsageError(`--${role} takes a device such as /dev/sdb, not "${text}"`);
    const filesystem = oneOf(`--${role} ${device}:FS`, fs, FILESYSTEMS);
    return { device, role, ...(filesystem ? { filesystem } : {}) };
  };
  return [
    ...o.parity.map((t) => parse('parity', t)),
    ...o.data.map((t) => parse('data', t)),
    ...(o.cache ? [parse('cache', o.cache)] : []),
  ];
}

/** `appliance disks list`, `array show|create|upgrade-plan|upgrade|replace-plan|replace` (03, 08 §9, issue 21). */
export const register: Register = (_root, app) => {
  app
    .group('disks', 'Disks of this machine')
    .command('list')
    .description('list the disks (a fresh inventory)')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/disks');
        ctx.out(
          res,
          () =>
            table(
              ['device', 'size', 'model', 'contents', 'use'],
              res.disks.map((d) => [d.device, iec(d.sizeBytes), d.model, contents(d), use(d)]),
            ) + (res.labMode ? '(lab mode: loop devices are listed as disks)\n' : ''),
        );
      }),
    );

  const array = app.group('array', 'The array: parity, data and cache disks');
  array
    .command('show')
    .description('show the array')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/disks/array');
        ctx.out(res, () =>
          !res.configured
            ? 'No array is set up: see appliance array create --help.\n'
            : fields([
                ['create policy', res.createPolicy],
                ['pool', res.poolMounted ? 'mounted at /mnt/user' : 'not mounted'],
                ['migration', res.migrationPending ? 'pending' : 'none'],
              ]) +
              table(
                ['slot', 'device', 'filesystem', 'size', 'mounted', 'removal'],
                res.disks.map((d) => [
                  d.mountpoint,
                  d.device ?? 'not found',
                  d.filesystem,
                  iec(d.sizeBytes),
                  d.mounted ? 'yes' : 'NO',
                  d.removalState,
                ]),
              ),
        );
      }),
    );
  array
    .command('create')
    .description('set up the array: erase, format and mount the disks (typed confirmation)')
    .option('--parity <device[:fs]>', 'a parity disk (1 or 2; xfs)', collect, [])
    .option('--data <device[:fs]>', 'a data disk, fs xfs (default), ext4 or btrfs (repeatable)', collect, [])
    .option('--cache <device[:fs]>', 'the cache disk')
    .option('--create-policy <policy>', POLICIES.join(' | '))
    .option('--confirm <phrase>', 'the confirmation phrase for scripts, e.g. "ERASE /dev/sdb, /dev/sdc"')
    .addHelpText(
      'after',
      progressHelp(
        'the current step (wipe, format, mount each disk, then the pool)',
        'array.create /mnt/user: mkfs /dev/sdc, 4s',
      ),
    )
    .action(
      app.action<{
        parity: string[];
        data: string[];
        cache?: string;
        createPolicy?: string;
        confirm?: string;
      }>(async (ctx, o) => {
        const disks = members(o);
        if (disks.length === 0)
          throw new UsageError('name the disks: --parity DEVICE --data DEVICE [--cache DEVICE]');
        const createPolicy = oneOf('--create-policy', o.createPolicy, POLICIES);
        const body = { disks, ...(createPolicy ? { createPolicy } : {}) };
        const confirmation = await confirmPhrase(ctx.io, {
          given: o.confirm,
          action: `erase ${disks.map((d) => d.device).join(', ')}`,
          prepare: async () => {
            // The service checks the plan first and answers with the phrase it expects.
            const expected = await expectedPhrase(() => ctx.client.post('/disks/array', { body }));
            const inventory = await ctx.client.get('/disks');
            const erased = inventory.disks.filter((d) => disks.some((m) => m.device === d.device));
            return {
              expected,
              description: `Setting up the array ERASES these disks:\n${eraseTable(erased)}`,
            };
          },
        });
        const res = await watchProgress(ctx, {
          operation: 'array.create',
          target: '/mnt/user',
          what: 'the array setup',
          start: () => ctx.client.post('/disks/array', { body: { ...body, confirmation } }),
          render: (p) => ({
            text: typeof p['step'] === 'string' ? p['step'] : p['ok'] === false ? 'failed' : 'done',
          }),
        });
        ctx.out(
          res,
          () =>
            table(
              ['slot', 'device', 'filesystem', 'mounted'],
              res.disks.map((d) => [
                d.mountpoint,
                d.device ?? 'not found',
                d.filesystem,
                d.mounted ? 'yes' : 'NO',
              ]),
            ) +
            `Array set up; the pool is ${res.poolMounted ? 'mounted at /mnt/user' : 'not mounted (mergerfs missing)'}.\n`,
        );
      }),
    );
  array
    .command('upgrade-plan')
    .description('preview moving a data or parity slot onto another disk (changes nothing)')
    .requiredOption('--mountpoint <slot>', 'the slot, e.g. /mnt/disk1')
    .requiredOption('--device <device>', 'the new disk, e.g. /dev/sdz')
    .option('--filesystem <fs>', FILESYSTEMS.join(' | '))
    .action(
      app.action<{ mountpoint: string; device: string; filesystem?: string }>(async (ctx, o) => {
        const filesystem = oneOf('--filesystem', o.filesystem, FILESYSTEMS);
        const plan = await ctx.client.post('/disks/array/upgrade/plan', {
          body: { mountpoint: o.mountpoint, device: o.device, ...(filesystem ? { filesystem } : {}) },
        });
        ctx.out(plan, () => planText(plan));
      }),
    );
  registerDiskJobs(array, app);
};

/** Sends the request without a confirmation: the service answers 409 with the phrase, or a refusal. */
export async function expectedPhrase(attempt: () => Promise<unknown>): Promise<string> {
  try {
    await attempt();
  } catch (err) {
    if (
      err instanceof ApiError &&
      err.code === 'confirmation_required' &&
      typeof err.details?.['expected'] === 'string'
    )
      return err.details['expected'];
    throw err;
  }
  throw new Error('the service did not ask for a confirmation');
}

export type { DiskEntry };
