/**
 * `appliance backups plans|run|snapshots|restore|drill` (issue 23): plans as a table and as
 * options, runs and drills followed with a progress bar (files, bytes, rate, ETA), the snapshots of
 * a plan, and restores (into place with the typed confirmation, or into a new folder; the
 * configuration of a snapshot comes out as an archive for `appliance config import`).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ResponseOf } from '@appliance/client';
import type { Register } from '../../framework/command.ts';
import { collect } from '../../framework/command.ts';
import { confirmPhrase } from '../../framework/confirm.ts';
import { UsageError } from '../../framework/exit.ts';
import { duration, fields, iec, relative, table } from '../../framework/format.ts';
import { followJob, type Job, jobHelp, jobLine } from '../../framework/jobs.ts';
import { jobExit, jobText } from '../jobs/index.ts';

type Plan = ResponseOf<'get', '/backups/plans/{name}'>;
type Snapshot = ResponseOf<'get', '/backups/snapshots'>['snapshots'][number];

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/** "stack web" / "share media" / "configuration". */
const partText = (p: Snapshot['part']) =>
  p === null ? '(not ours)' : p.kind === 'config' ? 'configuration' : `${p.kind} ${p.name}`;

export const scheduleText = (s: Plan['schedule']) =>
  s.kind === 'daily' ? `daily at ${s.time}` : `weekly on ${s.weekday} at ${s.time}`;

/** "share media 42% · 1.2 GiB of 2.8 GiB · 1,204/10,000 files · 95 MiB/s · ETA 12s". */
export function backupLine(j: Job & Record<string, unknown>): string {
  const base = jobLine(j);
  const extra: string[] = [];
  if (typeof j['files'] === 'number' && typeof j['filesTotal'] === 'number')
    extra.push(`${j['files'].toLocaleString('en')}/${j['filesTotal'].toLocaleString('en')} files`);
  if (typeof j['rate'] === 'number') extra.push(`${iec(j['rate'])}/s`);
  if (extra.length === 0) return base;
  const parts = base.split(' · ');
  const eta = parts.at(-1)?.startsWith('ETA') ? parts.pop() : undefined;
  return [...parts, ...extra, ...(eta ? [eta] : [])].join(' · ');
}

/**
 * The state column of `backups plans`: the worst that is true of a plan — no password here, its
 * last run failed (or was interrupted), stale, its last drill failed — else enabled or disabled.
 */
export function planState(p: Pick<Plan, 'hasPassword' | 'enabled' | 'status'>): string {
  const st = p.status;
  if (!p.hasPassword) return 'no password';
  if (st.lastRun && ['failed', 'interrupted'].includes(st.lastRun.state))
    return `LAST RUN ${st.lastRun.state.toUpperCase()}`;
  if (st.stale) return 'STALE';
  if (st.lastDrill?.state === 'failed') return 'DRILL FAILED';
  return p.enabled ? 'ok' : 'disabled';
}

/** When the next drill runs: off, a time, or (before any success) after the first one. */
function nextDrillText(p: Plan): string {
  const st = p.status;
  if (!p.drill.enabled) return 'off';
  if (st.nextDrillAt) return relative(st.nextDrillAt);
  return st.lastSuccessAt ? '-' : 'after the first success';
}

function planText(p: Plan): string {
  const what = [
    ...(p.configuration ? ['configuration'] : []),
    ...p.stacks.map((s) => `stack ${s.name}${s.keepRunning ? ' (kept running)' : ''}`),
    ...p.shares.map((s) => `share ${s}`),
  ];
  const st = p.status;
  return fields([
    ['plan', p.name],
    ['enabled', p.enabled ? 'yes' : 'no (not run on schedule)'],
    ['backs up', what.join(', ')],
    ['to', `${p.destination} (${p.repository})`],
    ['when', scheduleText(p.schedule)],
    ['keeps', `${p.retention.daily} daily, ${p.retention.weekly} weekly, ${p.retention.monthly} monthly`],
    ['drills', p.drill.enabled ? `every ${p.drill.everyDays} days at ${p.drill.time}` : 'off'],
    [
      'last run',
      st.lastRun ? `${relative(st.lastRun.at)}, ${st.lastRun.state} (job ${st.lastRun.jobId})` : 'never',
    ],
    ['last success', st.lastSuccessAt ? relative(st.lastSuccessAt) : 'never'],
    ['next run', st.nextRunAt ? relative(st.nextRunAt) : 'off'],
    ['last drill', st.lastDrill ? `${relative(st.lastDrill.at)}, ${st.lastDrill.state}` : 'never'],
    ['next drill', nextDrillText(p)],
    ['stale', st.stale ? 'YES: no successful backup within twice its period' : null],
    [
      'password',
      p.hasPassword
        ? 'known (sealed on this box; in the configuration archive)'
        : 'NOT KNOWN HERE: import the configuration archive with its passphrase',
    ],
    ['config archive', p.latestConfigArchive],
  ]);
}

interface PlanOptions {
  destination?: string;
  configuration?: boolean;
  stack?: string[];
  share?: string[];
  daily?: string;
  weekly?: string;
  keepDaily?: string;
  keepWeekly?: string;
  keepMonthly?: string;
  drillEvery?: string;
  drillTime?: string;
  drill?: boolean;
  disabled?: boolean;
  enabled?: boolean;
}

const whole = (name: string, v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  if (!/^\d{1,4}$/.test(v)) throw new UsageError(`${name} takes a whole number, not "${v}"`);
  return Number(v);
};

/** The PUT/POST body of a plan: the given options over `base` (the current plan, for update). */
export function planBody(o: PlanOptions, base: Partial<Plan> = {}) {
  if (o.daily && o.weekly) throw new UsageError('give one of --daily HH:MM or --weekly DAY@HH:MM');
  let schedule = base.schedule;
  if (o.daily) schedule = { kind: 'daily', time: o.daily };
  if (o.weekly) {
    const [day, time] = o.weekly.split('@');
    const weekday = WEEKDAYS.find((d) => d === day?.toLowerCase() || d.slice(0, 3) === day?.toLowerCase());
    if (!weekday || !time)
      throw new UsageError(`--weekly takes DAY@HH:MM, e.g. sun@04:00, not "${o.weekly}"`);
    schedule = { kind: 'weekly', weekday, time };
  }
  if (!schedule) throw new UsageError('say when it runs: --daily HH:MM or --weekly DAY@HH:MM');
  const destination = o.destination ?? base.destination;
  if (!destination) throw new UsageError('name the backup disk: --destination LABEL');
  const stacks =
    o.stack?.map((s) => {
      const [name, mode] = s.split(':');
      if (mode !== undefined && mode !== 'running')
        throw new UsageError(`--stack takes NAME or NAME:running, not "${s}"`);
      return { name: name!, keepRunning: mode === 'running' };
    }) ?? base.stacks;
  const retention = {
    daily: whole('--keep-daily', o.keepDaily) ?? base.retention?.daily ?? 7,
    weekly: whole('--keep-weekly', o.keepWeekly) ?? base.retention?.weekly ?? 4,
    monthly: whole('--keep-monthly', o.keepMonthly) ?? base.retention?.monthly ?? 6,
  };
  const drill = {
    enabled: o.drill === false ? false : o.drillEvery !== undefined ? true : (base.drill?.enabled ?? true),
    everyDays: whole('--drill-every', o.drillEvery) ?? base.drill?.everyDays ?? 30,
    time: o.drillTime ?? base.drill?.time ?? '05:00',
  };
  return {
    enabled: o.disabled ? false : o.enabled ? true : (base.enabled ?? true),
    destination,
    configuration: o.configuration ?? base.configuration ?? false,
    stacks: stacks ?? [],
    shares: o.share ?? base.shares ?? [],
    schedule,
    retention,
    drill,
  };
}

const PLAN_HELP = `
Examples:
  appliance backups plans create nightly --destination backup --configuration \\
      --stack nextcloud --stack jellyfin:running --share photos --daily 03:30
  appliance backups plans update nightly --weekly sun@04:00 --keep-monthly 12
  appliance backups plans delete nightly --confirm "DELETE nightly"
--stack NAME stops the stack for a consistent copy and starts it again; NAME:running backs it
up while it runs. Retention keeps the newest snapshot of each of the last N days, weeks and
months (defaults 7, 4, 6). Drills restore the latest snapshots every N days (default 30).`;

function planOptions(cmd: import('commander').Command) {
  return cmd
    .option(
      '--destination <label>',
      'the backup disk (a registered external disk marked as backup destination)',
    )
    .option('--configuration', 'back up the configuration archive')
    .option('--stack <name[:running]>', "a stack's app data (repeat); :running keeps it running", collect)
    .option('--share <name>', 'a share (repeat)', collect)
    .option('--daily <HH:MM>', 'run every day at this time')
    .option('--weekly <DAY@HH:MM>', 'run every week, e.g. sun@04:00')
    .option('--keep-daily <n>', 'keep the newest snapshot of each of the last n days')
    .option('--keep-weekly <n>', '… of the last n weeks')
    .option('--keep-monthly <n>', '… of the last n months')
    .option('--drill-every <days>', 'a restore drill every n days (default 30)')
    .option('--drill-time <HH:MM>', 'when drills run (default 05:00)')
    .option('--no-drill', 'no scheduled restore drills')
    .option('--disabled', 'never run on schedule (run it by hand)')
    .addHelpText('after', PLAN_HELP);
}

async function follow(
  ctx: import('../../framework/context.ts').Ctx,
  what: string,
  wait: boolean,
  start: () => Promise<Job>,
): Promise<Job | null> {
  if (!wait) {
    const job = await start();
    ctx.out(job, () => `Started ${what}: job ${job.id} (appliance jobs show ${job.id} --follow).\n`);
    return null;
  }
  return followJob(ctx, { what, start, text: backupLine });
}

/** Writes `stream` to `target` atomically (0600 temp beside it, fsync, rename). */
async function writeFileFromStream(stream: NodeJS.ReadableStream, target: string): Promise<void> {
  const tmp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    await pipeline(stream, fs.createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
    const fd = fs.openSync(tmp, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

export const register: Register = (_root, app) => {
  const backups = app.group('backups', 'Backups: plans, runs, snapshots, restores and drills (restic)');

  const plans = backups
    .command('plans')
    .description('list backup plans, or create, update, show, delete one');
  plans.action(
    app.action(async (ctx) => {
      const res = await ctx.client.get('/backups/plans');
      ctx.out(res, () =>
        res.plans.length === 0
          ? 'No backup plans (appliance backups plans create --help).\n'
          : table(
              ['plan', 'to', 'when', 'last run', 'last success', 'next run', 'state'],
              res.plans.map((p) => [
                p.name,
                p.destination,
                scheduleText(p.schedule),
                p.status.lastRun ? `${relative(p.status.lastRun.at)}, ${p.status.lastRun.state}` : 'never',
                p.status.lastSuccessAt ? relative(p.status.lastSuccessAt) : 'never',
                p.status.nextRunAt ? relative(p.status.nextRunAt) : 'off',
                planState(p),
              ]),
            ),
      );
    }),
  );
  plans
    .command('show')
    .argument('<name>')
    .description('one plan: what, where, when, retention, drills, last and next runs')
    .action(
      app.action(async (ctx, _o, [name]) => {
        const p = await ctx.client.get('/backups/plans/{name}', { params: { name: name! } });
        ctx.out(p, () => planText(p));
      }),
    );
  planOptions(
    plans
      .command('create')
      .argument('<name>')
      .description('create a plan (its repository password is generated and sealed)'),
  ).action(
    app.action<PlanOptions>(async (ctx, o, [name]) => {
      const p = await ctx.client.post('/backups/plans', { body: { name: name!, ...planBody(o) } });
      ctx.out(p, () => `Created plan ${p.name}.\n${planText(p)}`);
    }),
  );
  planOptions(
    plans
      .command('update')
      .argument('<name>')
      .description('change a plan: the options given replace those settings'),
  ).action(
    app.action<PlanOptions>(async (ctx, o, [name]) => {
      const current = await ctx.client.get('/backups/plans/{name}', { params: { name: name! } });
      const p = await ctx.client.put('/backups/plans/{name}', {
        params: { name: name! },
        body: planBody(o, current),
      });
      ctx.out(p, () => planText(p));
    }),
  );
  plans
    .command('delete')
    .argument('<name>')
    .description('delete a plan (its snapshots stay on the disk, but its password goes with it)')
    .option('--confirm <phrase>', 'the confirmation phrase for scripts: "DELETE <name>"')
    .action(
      app.action<{ confirm?: string }>(async (ctx, o, [name]) => {
        const confirmation = await confirmPhrase(ctx.io, {
          given: o.confirm,
          action: `delete the plan ${name}`,
          prepare: async () => ({
            expected: `DELETE ${name}`,
            description: `Deleting plan ${name} forgets its repository password: its snapshots stay on the disk, but this box can no longer read them (export the configuration first to keep it).`,
          }),
        });
        await ctx.client.delete('/backups/plans/{name}', { params: { name: name! }, body: { confirmation } });
        ctx.out({ deleted: name }, () => `Deleted plan ${name}.\n`);
      }),
    );

  backups
    .command('run')
    .argument('<plan>')
    .description('back up a plan now, following it with a progress bar')
    .option('--no-wait', 'print the job and return at once')
    .addHelpText(
      'after',
      jobHelp(
        'the part (configuration, stack, share), percent, bytes, files, rate and ETA',
        'backup.run nightly: share media (3/3) 42% · 1.2 GiB of 2.8 GiB · 1,204/10,000 files · 95 MiB/s · ETA 18s, 40s',
      ),
    )
    .action(
      app.action<{ wait: boolean }>(async (ctx, o, [plan]) => {
        const job = await follow(ctx, `the backup of ${plan}`, o.wait, () =>
          ctx.client.post('/backups/plans/{name}/run', { params: { name: plan! }, body: {} }),
        );
        if (!job) return;
        const parts =
          ((job.result ?? job.error?.details) as { parts?: PartResult[] } | undefined)?.parts ?? [];
        ctx.out(
          job,
          () =>
            (parts.length ? partsTable(parts) : '') +
            (job.state === 'succeeded' ? `Backed up plan ${plan}.\n` : jobText(job)),
        );
        jobExit(job);
      }),
    );

  backups
    .command('snapshots')
    .argument('<plan>')
    .description("the plan's snapshots as restic lists them, newest first, with time and size")
    .action(
      app.action(async (ctx, _o, [plan]) => {
        const res = await ctx.client.get('/backups/snapshots', { query: { plan: plan! } });
        ctx.out(res, () =>
          res.snapshots.length === 0
            ? `No snapshots of ${plan} yet (appliance backups run ${plan}).\n`
            : table(
                ['snapshot', 'time', 'holds', 'size', 'added', 'files'],
                res.snapshots.map((s) => [
                  s.shortId,
                  `${s.time.replace('T', ' ').slice(0, 19)} (${relative(s.time)})`,
                  partText(s.part),
                  iec(s.sizeBytes),
                  s.dataAddedBytes === null ? null : iec(s.dataAddedBytes),
                  s.files,
                ]),
              ),
        );
      }),
    );

  backups
    .command('restore')
    .argument('<plan>')
    .argument('<snapshot>', 'a snapshot id (as appliance backups snapshots shows it)')
    .description(
      'restore a snapshot of a share or a stack (whole, or --path), into its place or --into a new folder',
    )
    .option('--share <name>', 'the snapshot holds this share')
    .option('--stack <name>', "the snapshot holds this stack's app data (stopped, restored, started again)")
    .option(
      '--configuration',
      'the snapshot holds the configuration: write its archive (--output) for appliance config import',
    )
    .option(
      '--path <path>',
      'only this path of the snapshot (repeat), relative to its root, e.g. photos/2024',
      collect,
    )
    .option('--into <folder>', 'a new folder instead of the place, e.g. /mnt/user/media/restored')
    .option('-o, --output <file>', 'with --configuration: where to write the archive')
    .option(
      '--confirm <phrase>',
      'into the place, for scripts: "RESTORE share <name>" or "RESTORE stack <name>"',
    )
    .option('--no-wait', 'print the job and return at once')
    .addHelpText(
      'after',
      `
Into its place, what is there now is moved aside first (<name>.before-restore-<time>), never
deleted. The configuration goes through the import: --configuration writes the archive the
snapshot holds, then run: appliance config import FILE.${jobHelp('the bytes written of the total', 'backup.restore share:media: restore 60% · 600 MiB of 1 GiB, 12s')}`,
    )
    .action(
      app.action<{
        share?: string;
        stack?: string;
        configuration?: boolean;
        path?: string[];
        into?: string;
        output?: string;
        confirm?: string;
        wait: boolean;
      }>(async (ctx, o, [plan, snapshot]) => {
        const kinds = [o.share, o.stack, o.configuration].filter((x) => x !== undefined).length;
        if (kinds !== 1)
          throw new UsageError(
            'say what the snapshot holds: one of --share NAME, --stack NAME, --configuration',
          );
        if (o.configuration) {
          const target = path.resolve(o.output ?? `appliance-config-${plan}-${snapshot}.tar.zst`);
          if (fs.existsSync(target))
            throw new UsageError(`${target} exists; choose another path with --output`);
          const dl = await ctx.client.download('get', '/backups/snapshots/{id}/configuration', {
            params: { id: snapshot! },
            query: { plan: plan! },
          });
          await writeFileFromStream(dl.stream, target);
          ctx.out(
            { path: target },
            () => `Wrote ${target}.\nRestore it with: appliance config import ${target}\n`,
          );
          return;
        }
        const part = o.share !== undefined ? { share: o.share } : { stack: o.stack! };
        const label = o.share !== undefined ? `share ${o.share}` : `stack ${o.stack}`;
        const body = {
          plan: plan!,
          snapshot: snapshot!,
          ...part,
          ...(o.path ? { paths: o.path } : {}),
          ...(o.into ? { folder: o.into } : {}),
        };
        const confirmation = o.into
          ? undefined
          : await confirmPhrase(ctx.io, {
              given: o.confirm,
              action: `restore ${label} into its place`,
              prepare: async () => ({
                expected: `RESTORE ${label}`,
                description: `Restoring ${o.path ? o.path.join(', ') : `the whole snapshot ${snapshot}`} of ${label} into its place: what is there now is moved aside (<name>.before-restore-<time>).`,
              }),
            });
        const job = await follow(ctx, `the restore of ${label}`, o.wait, () =>
          ctx.client.post('/backups/restore', {
            body: { ...body, ...(confirmation ? { confirmation } : {}) },
          }),
        );
        if (!job) return;
        const r = (job.result ?? {}) as {
          target?: string;
          restored?: string[];
          movedAside?: { path: string; to: string }[];
          stackStarted?: boolean;
        };
        ctx.out(job, () =>
          job.state !== 'succeeded'
            ? jobText(job)
            : `Restored ${(r.restored ?? []).join(', ')} into ${r.target}.\n${(r.movedAside ?? []).map((m) => `  ${m.path} was moved aside to ${m.to}\n`).join('')}${r.stackStarted ? `The stack ${o.stack} is running again.\n` : ''}`,
        );
        jobExit(job);
      }),
    );

  backups
    .command('drill')
    .argument('<plan>')
    .description(
      'a restore drill now: restic check of a tenth of the data, then a verified restore of each latest snapshot',
    )
    .option('--no-wait', 'print the job and return at once')
    .addHelpText(
      'after',
      jobHelp('the phase (check, restore <part>)', 'backup.drill nightly: restore share media, 8s'),
    )
    .action(
      app.action<{ wait: boolean }>(async (ctx, o, [plan]) => {
        const job = await follow(ctx, `the drill of ${plan}`, o.wait, () =>
          ctx.client.post('/backups/plans/{name}/drill', { params: { name: plan! }, body: {} }),
        );
        if (!job) return;
        const r = (job.result ?? job.error?.details ?? {}) as {
          check?: { subset: string; error: string | null };
          parts?: {
            part: Snapshot['part'];
            snapshot: string;
            whole: boolean;
            files: number;
            bytes: number;
            error: string | null;
          }[];
        };
        ctx.out(
          job,
          () =>
            (r.check ? `check (data subset ${r.check.subset}): ${r.check.error ?? 'passed'}\n` : '') +
            (r.parts?.length
              ? table(
                  ['restored', 'snapshot', 'files', 'bytes', 'result'],
                  r.parts.map((p) => [
                    partText(p.part),
                    p.snapshot,
                    `${p.files}${p.whole ? '' : ' (sample)'}`,
                    iec(p.bytes),
                    p.error ?? 'identical, verified',
                  ]),
                )
              : '') +
            (job.state === 'succeeded' ? `The drill of ${plan} passed.\n` : jobText(job)),
        );
        jobExit(job);
      }),
    );
};

interface PartResult {
  part: Snapshot['part'];
  state: string;
  snapshot: string | null;
  files: number | null;
  bytes: number | null;
  dataAdded: number | null;
  seconds: number;
  error: string | null;
  note: string | null;
}

function partsTable(parts: PartResult[]): string {
  return table(
    ['part', 'result', 'snapshot', 'files', 'size', 'added', 'time'],
    parts.map((p) => [
      partText(p.part),
      p.state === 'failed' ? `FAILED: ${p.error}` : p.state === 'skipped' ? `skipped: ${p.note}` : 'ok',
      p.snapshot,
      p.files,
      p.bytes === null ? null : iec(p.bytes),
      p.dataAdded === null ? null : iec(p.dataAdded),
      duration(p.seconds * 1000),
    ]),
  );
}
