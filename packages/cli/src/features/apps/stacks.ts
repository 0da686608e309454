/**
 * `appliance apps list|show|start|stop|restart|update|remove|logs` (issue 35): installed stacks,
 * their operations as jobs followed with a bar, removal behind a typed phrase, logs (followed live
 * with -f over server-sent events).
 */
import { parseSse, type ResponseOf } from '@appliance/client';
import type { Register } from '../../framework/command.ts';
import { confirmPhrase } from '../../framework/confirm.ts';
import type { Ctx } from '../../framework/context.ts';
import { UsageError } from '../../framework/exit.ts';
import { fields, relative, table } from '../../framework/format.ts';
import { followJob, jobHelp, type Job } from '../../framework/jobs.ts';
import { jobExit, jobText } from '../jobs/index.ts';

type Stack = ResponseOf<'get', '/stacks/{name}'>;
type Line = { time: string; service: string; container: string; stream: string; text: string };

const portsOf = (s: Stack) =>
  s.services
    .flatMap((x) =>
      x.containers.flatMap((c) => c.ports.map((p) => `${p.hostIp || '*'}:${p.published}→${p.target}`)),
    )
    .join(', ');

function containerText(c: Stack['services'][number]['containers'][number]): string {
  const state =
    c.state === 'exited' && c.exitCode !== null
      ? `exited (${c.exitCode})`
      : c.health
        ? `${c.state} (${c.health})`
        : c.state;
  const digest = c.digests[0] ? c.digests[0].replace(/^sha256:/, '').slice(0, 12) : 'no registry digest';
  return `${c.name}: ${state} · ${c.image} @ ${digest}`;
}

export function stackText(s: Stack): string {
  return (
    fields([
      ['stack', s.name],
      ['status', s.status],
      [
        'template',
        s.template ? `${s.template.source}/${s.template.id} (revision ${s.template.revision})` : 'hand-made',
      ],
      ['installed', relative(s.installedAt)],
      ['folder', s.directory],
      ['ports', portsOf(s) || null],
      ['update', s.updateAvailable ? 'available (appliance apps update ' + s.name + ')' : null],
    ]) +
    table(
      ['service', 'containers', 'update'],
      s.services.map((x) => [
        x.name,
        x.containers.length ? x.containers.map(containerText).join('; ') : 'not created',
        x.updateAvailable ? 'available' : '',
      ]),
    )
  );
}

const lineText = (l: Line) => `${l.time.slice(0, 19).replace('T', ' ')} ${l.service} | ${l.text}\n`;

/** "start 50% · web starting". */
const stackJobLine = (j: Job & Record<string, unknown>) =>
  `${j.phase ?? j.state}${j.percent !== null && j.percent !== undefined ? ` ${Math.round(j.percent)}%` : ''}${
    typeof j['service'] === 'string' ? ` · ${j['service']} ${String(j['action'] ?? '')}` : ''
  }`;

async function operate(ctx: Ctx, what: string, start: () => Promise<Job>, done: (j: Job) => string) {
  const job = await followJob(ctx, { what, start, text: stackJobLine });
  ctx.out(job, () => (job.state === 'succeeded' ? done(job) : jobText(job)));
  jobExit(job);
}

export const registerStacks: Register = (_root, app) => {
  const apps = app.group('apps', 'Installed apps (Compose stacks): state, start, stop, update, remove, logs');
  apps
    .command('list')
    .description('list the stacks with their status, ports and available updates')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/stacks');
        ctx.out(
          res,
          () =>
            (res.docker === 'unavailable'
              ? 'Docker does not answer: the status of every stack is unknown.\n'
              : '') +
            table(
              ['stack', 'status', 'services', 'ports', 'update'],
              res.stacks.map((s) => [
                s.name,
                s.status,
                s.services.map((x) => x.name).join(', '),
                portsOf(s),
                s.updateAvailable ? 'available' : '',
              ]),
            ),
        );
      }),
    );
  apps
    .command('show <stack>')
    .description('one stack: each service’s containers (state, exit code, health), images and digests, ports')
    .action(
      app.action(async (ctx, _o, [name]) => {
        const s = await ctx.client.get('/stacks/{name}', { params: { name: name! } });
        ctx.out(s, () => stackText(s));
      }),
    );
  for (const [verb, description, done] of [
    ['start', 'start a stack (compose up -d); refused when one of its ports is taken', 'is running'],
    ['stop', 'stop a stack (compose stop); it stays stopped across reboots', 'is stopped'],
    ['restart', 'restart a stack (compose restart)', 'was restarted'],
  ] as const) {
    apps
      .command(`${verb} <stack>`)
      .description(description)
      .addHelpText(
        'after',
        jobHelp('per service', `stack.${verb} stacks/web: ${verb}ing 50% · app ${verb}ing, 2s`),
      )
      .action(
        app.action(async (ctx, _o, [name]) =>
          operate(
            ctx,
            `the ${verb} of ${name}`,
            () => ctx.client.post(`/stacks/{name}/${verb}`, { params: { name: name! }, body: {} }),
            (j) =>
              `The stack ${name} ${done} (${(j.result as { status?: string } | null)?.status ?? 'done'}).\n`,
          ),
        ),
      );
  }
  apps
    .command('update <stack>')
    .description('pull newer images, recreate changed services, roll back when their health check fails')
    .option(
      '--health-timeout <seconds>',
      'how long the new containers may take to be healthy (5-3600, default 120)',
    )
    .option('--snapshot', 'run the backup plan that holds the stack first')
    .action(
      app.action<{ healthTimeout?: string; snapshot?: boolean }>(async (ctx, o, [name]) => {
        let healthTimeoutSeconds: number | undefined;
        if (o.healthTimeout !== undefined) {
          healthTimeoutSeconds = Number(o.healthTimeout);
          if (!Number.isInteger(healthTimeoutSeconds))
            throw new UsageError(`--health-timeout takes whole seconds, not "${o.healthTimeout}"`);
        }
        const body = {
          ...(healthTimeoutSeconds !== undefined ? { healthTimeoutSeconds } : {}),
          ...(o.snapshot ? { snapshot: true } : {}),
        };
        await operate(
          ctx,
          `the update of ${name}`,
          () => ctx.client.post('/stacks/{name}/update', { params: { name: name! }, body }),
          (j) => {
            const updated = (j.result as { updated?: Array<{ service: string }> } | null)?.updated ?? [];
            return updated.length
              ? `Updated ${updated.map((u) => u.service).join(', ')} of the stack ${name}.\n`
              : `Every image of the stack ${name} is current: nothing was recreated.\n`;
          },
        );
      }),
    );
  apps
    .command('remove <stack>')
    .description('remove a stack (compose down, its folder and row); its data folders are kept unless --data')
    .option('--data', 'also delete its data folders (only those under /mnt/cache)')
    .option(
      '--confirm <phrase>',
      'the phrase, for scripts: "DELETE <stack>" (with --data "DELETE <stack> AND ITS DATA")',
    )
    .action(
      app.action<{ data?: boolean; confirm?: string }>(async (ctx, o, [name]) => {
        const removeData = o.data === true;
        const confirm = await confirmPhrase(ctx.io, {
          given: o.confirm,
          action: `remove the stack ${name}`,
          prepare: async () => {
            const s = await ctx.client.get('/stacks/{name}', { params: { name: name! } });
            return {
              expected: removeData ? `DELETE ${name} AND ITS DATA` : `DELETE ${name}`,
              description: `Removing the stack ${name} (${s.status}) stops and deletes its containers, ${s.directory} and its row; ${
                removeData
                  ? 'its data folders under /mnt/cache are DELETED too.'
                  : 'its data folders are kept.'
              }`,
            };
          },
        });
        await operate(
          ctx,
          `the removal of ${name}`,
          () =>
            ctx.client.delete('/stacks/{name}', {
              params: { name: name! },
              body: { confirm, ...(removeData ? { removeData: true } : {}) },
            }),
          (j) => {
            const data =
              (j.result as { data?: Array<{ folder: string; outcome: string }> } | null)?.data ?? [];
            return `Removed the stack ${name}.\n${data.map((d) => `  data ${d.folder}: ${d.outcome}\n`).join('')}`;
          },
        );
      }),
    );
  apps
    .command('logs <stack>')
    .description('the containers’ output, newest last')
    .option('--service <name>', 'only this service')
    .option('--tail <n>', 'the last n lines (default 200)')
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .action(
      app.action<{ service?: string; tail?: string; follow?: boolean }>(async (ctx, o, [name]) => {
        if (o.tail !== undefined && !/^\d+$/.test(o.tail))
          throw new UsageError(`--tail takes a number, not "${o.tail}"`);
        const query = {
          ...(o.service ? { service: o.service } : {}),
          ...(o.tail ? { tail: o.tail } : {}),
        };
        if (!o.follow) {
          const res = await ctx.client.get('/stacks/{name}/logs', { params: { name: name! }, query });
          ctx.out(res, () => res.lines.map((l) => lineText(l as Line)).join(''));
          return;
        }
        const d = await ctx.client.download('get', '/stacks/{name}/logs', {
          params: { name: name! },
          query: { ...query, follow: '1' },
        });
        const stop = () => d.stream.destroy();
        process.once('SIGINT', stop);
        try {
          for await (const e of parseSse(d.stream)) {
            if (e.event !== 'line') continue;
            const l = JSON.parse(e.data) as Line;
            ctx.io.stdout.write(ctx.json ? `${e.data}\n` : lineText(l));
          }
        } catch {
          // Ctrl-C closed the stream
        } finally {
          process.off('SIGINT', stop);
        }
      }),
    );
};
