import type { Register } from '../../framework/command.ts';
import { confirmPhrase } from '../../framework/confirm.ts';
import type { Ctx } from '../../framework/context.ts';
import { iec, table } from '../../framework/format.ts';
import { progressHelp, watchProgress } from '../../framework/progress.ts';

type Report = Awaited<ReturnType<typeof dryRun>>;

const dryRun = (ctx: Ctx, name: string) =>
  ctx.client.post('/shares/{name}/data/delete', {
    params: { name },
    body: { confirmation: name, dryRun: true },
  });

const counts = (t: { filesDeleted: number; dirsDeleted: number; bytesFreed: number }) =>
  `${t.filesDeleted} files, ${t.dirsDeleted} directories, ${iec(t.bytesFreed)}`;

function reportTable(r: Report): string {
  return table(
    ['disk', 'path', 'files', 'dirs', 'size', 'status'],
    r.branches.map((b) => [b.disk, b.path, b.filesDeleted, b.dirsDeleted, iec(b.bytesFreed), b.status]),
  );
}

/** `appliance shares delete-data NAME [--dry-run] [--confirm NAME]` (05). */
export const register: Register = (_root, app) => {
  app
    .group('shares', 'Shares, their access and their data')
    .command('delete-data')
    .description("delete a share's files on every disk that holds it (the share itself stays)")
    .argument('<share>')
    .option('--dry-run', 'count what would be deleted; delete nothing')
    .option('--confirm <phrase>', 'the confirmation phrase (the share name) for scripts')
    .addHelpText(
      'after',
      progressHelp(
        'the files, directories and bytes deleted so far',
        'share_data.delete media: 1200 files, 80 directories, 1.1 GiB deleted, 3s',
      ),
    )
    .action(
      app.action<{ dryRun?: boolean; confirm?: string }>(async (ctx, o, [name]) => {
        const share = name!;
        if (o.dryRun) {
          // A dry run deletes nothing: the phrase it needs is supplied (unless given).
          const r = await ctx.client.post('/shares/{name}/data/delete', {
            params: { name: share },
            body: { confirmation: o.confirm ?? share, dryRun: true },
          });
          ctx.out(r, () => `${reportTable(r)}Would delete ${counts(r.totals)} of ${share}.\n`);
          return;
        }
        let total: number | undefined;
        const confirmation = await confirmPhrase(ctx.io, {
          given: o.confirm,
          action: `delete the files of ${share}`,
          prepare: async () => {
            const r = await dryRun(ctx, share);
            total = r.totals.filesDeleted + r.totals.dirsDeleted;
            return {
              expected: share,
              description: `This deletes every file of the share ${share} on these disks (the share stays):\n${reportTable(r)}In all: ${counts(r.totals)}.`,
            };
          },
        });
        const r = await watchProgress(ctx, {
          operation: 'share_data.delete',
          target: share,
          what: `the delete of ${share}'s files`,
          start: () =>
            ctx.client.post('/shares/{name}/data/delete', {
              params: { name: share },
              body: { confirmation, dryRun: false },
            }),
          render: (p) => {
            const t = p as { filesDeleted: number; dirsDeleted: number; bytesFreed: number };
            return {
              text: `${counts(t)} deleted`,
              value: t.filesDeleted + t.dirsDeleted,
              ...(total !== undefined ? { total } : {}),
            };
          },
        });
        ctx.out(r, () => `${reportTable(r)}Deleted ${counts(r.totals)} of ${share}.\n`);
      }),
    );
};
