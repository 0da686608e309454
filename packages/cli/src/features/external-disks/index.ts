import type { Register } from '../../framework/command.ts';
import { confirmPhrase } from '../../framework/confirm.ts';
import { fields, iec, relative, table } from '../../framework/format.ts';
import { oneOf } from '../../framework/lookup.ts';
import { progressHelp, watchProgress } from '../../framework/progress.ts';
import { contents, eraseTable, expectedPhrase } from '../disks/index.ts';

const FILESYSTEMS = ['xfs', 'ext4', 'btrfs', 'exfat'] as const;

/** What is on an external disk: its filesystem and filesystem label (not the registration label). */
const contentsOf = (d: {
  filesystem: string | null;
  fsLabel: string | null;
  partitions: Array<{ filesystem: string | null; label: string | null }>;
  mounted: boolean;
  mountpoint: string;
}) =>
  contents({
    filesystem: d.filesystem,
    label: d.fsLabel,
    partitions: d.partitions,
    mountpoints: d.mounted ? [d.mountpoint] : [],
  });

/** `appliance external list|register|format|mount|eject` (07, issue 23). */
export const register: Register = (_root, app) => {
  const external = app.group('external', 'External (backup) disks');
  external
    .command('list')
    .description('list registered external disks and unregistered candidates')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/disks/external');
        ctx.out(res, () =>
          table(
            ['label', 'device', 'size', 'model', 'contents', 'state', 'formatted'],
            res.disks.map((d) => [
              d.registered ? d.label : `(${d.label})`,
              d.device,
              iec(d.sizeBytes),
              d.model,
              d.attached ? contentsOf(d) : 'not attached',
              d.registered ? (d.backupDestination ? 'backup destination' : 'registered') : 'candidate',
              d.formattedAt ? relative(d.formattedAt) : null,
            ]),
          ),
        );
      }),
    );
  external
    .command('register')
    .description('register a whole disk under a label (the disk is not touched)')
    .argument('<device>', 'e.g. /dev/sde')
    .requiredOption('--label <label>', 'the name it is known by')
    .option('--backup-destination', 'mark it as a backup destination')
    .action(
      app.action<{ label: string; backupDestination?: boolean }>(async (ctx, o, [device]) => {
        const d = await ctx.client.post('/disks/external', {
          body: {
            device: device!,
            label: o.label,
            ...(o.backupDestination ? { backupDestination: true } : {}),
          },
        });
        ctx.out(d, () =>
          fields([
            ['label', d.label],
            ['device', d.device],
            ['size', iec(d.sizeBytes)],
            ['model', d.model],
            ['contents', contentsOf(d)],
          ]),
        );
      }),
    );
  external
    .command('format')
    .description('erase an external disk and create one filesystem on it (typed confirmation)')
    .argument('<label>')
    .option('--filesystem <fs>', `${FILESYSTEMS.join(' | ')} (default xfs)`)
    .option('--confirm <phrase>', 'the confirmation phrase for scripts: "ERASE <device>"')
    .addHelpText(
      'after',
      progressHelp('each command of the format', 'disks.external.format backup: step 2/4: mkfs, 1s'),
    )
    .action(
      app.action<{ filesystem?: string; confirm?: string }>(async (ctx, o, [label]) => {
        const filesystem = oneOf('--filesystem', o.filesystem, FILESYSTEMS);
        const body = filesystem ? { filesystem } : {};
        const confirmation = await confirmPhrase(ctx.io, {
          given: o.confirm,
          action: `format ${label}`,
          prepare: async () => {
            // the service runs every check and answers with the phrase (ERASE <current device>)
            const expected = await expectedPhrase(() =>
              ctx.client.post('/disks/external/{label}/format', { params: { label: label! }, body }),
            );
            const device = expected.replace(/^ERASE /, '');
            const { disks } = await ctx.client.get('/disks');
            const disk = disks.filter((d) => d.device === device);
            return {
              expected,
              description: `Formatting ${label} as ${filesystem ?? 'xfs'} ERASES this disk:\n${eraseTable(disk)}`,
            };
          },
        });
        const d = await watchProgress(ctx, {
          operation: 'disks.external.format',
          target: label!,
          what: `the format of ${label}`,
          start: () =>
            ctx.client.post('/disks/external/{label}/format', {
              params: { label: label! },
              body: { ...body, confirmation },
            }),
          render: (p) => ({
            text: `step ${p['stepIndex']}/${p['steps']}: ${p['step']}`,
            value: Number(p['stepIndex'] ?? 0),
            total: Number(p['steps'] ?? 0),
          }),
        });
        ctx.out(d, () => `Formatted ${d.label} (${d.device}) as ${d.filesystem}; UUID ${d.fsUuid}.\n`);
      }),
    );
  external
    .command('mount')
    .description('mount an external disk at /mnt/disks/<label> (by filesystem UUID, nosuid,nodev)')
    .argument('<label>')
    .action(
      app.action(async (ctx, _o, [label]) => {
        const r = await ctx.client.post('/disks/external/{label}/mount', {
          params: { label: label! },
          body: {},
        });
        ctx.out(r, () =>
          r.mounted
            ? `Mounted ${label} at ${r.disk.mountpoint}.\n`
            : `${label} was mounted at ${r.disk.mountpoint} already.\n`,
        );
      }),
    );
  external
    .command('eject')
    .description('eject an external disk: sync, unmount, power a USB disk down so it can be unplugged')
    .argument('<label>')
    .action(
      app.action(async (ctx, _o, [label]) => {
        const r = await ctx.client.post('/disks/external/{label}/eject', {
          params: { label: label! },
          body: {},
        });
        ctx.out(r, () => `${r.note}\n`);
      }),
    );
};
