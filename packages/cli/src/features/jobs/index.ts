import type { Register } from '../../framework/command.ts';
import { fields, relative, table } from '../../framework/format.ts';
import { followJob, type Job, jobLine } from '../../framework/jobs.ts';
import { oneOf } from '../../framework/lookup.ts';
import { Refusal, UsageError } from '../../framework/exit.ts';

const STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted', 'blocked'] as const;

/** The human view of one job: what, where, state, progress, result or error, output tail. */
export function jobText(j: Job): string {
  const out =
    fields([
      ['job', j.id],
      ['type', j.type],
      ['target', j.target],
      ['state', j.state],
      ['progress', j.state === 'running' ? jobLine(j) : null],
      [
        'started',
        j.startedAt
          ? `${relative(j.startedAt)} (${j.trigger === 'schedule' ? 'scheduled' : `by ${j.actor}`})`
          : null,
      ],
      ['ended', j.endedAt ? relative(j.endedAt) : null],
      ['cancellable', j.state === 'running' ? (j.cancellable ? 'yes' : 'not in this phase') : null],
      ['error', j.error ? `${j.error.code}: ${j.error.message}` : null],
    ]) +
    (j.result !== null && j.result !== undefined
      ? `result:\n${indent(JSON.stringify(j.result, null, 2))}\n`
      : '') +
    (j.output.length > 0 ? `output (last ${j.output.length} lines):\n${indent(j.output.join('\n'))}\n` : '');
  return out;
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** A followed job that did not succeed ends the command with exit 1, printed as `<code>: <message>`. */
export function jobExit(j: Job): void {
  if (j.state === 'succeeded') return;
  throw new Refusal(j.error?.code ?? j.state, j.error?.message ?? `The ${j.type} job ended ${j.state}.`);
}

/** `appliance jobs list|show|cancel` (09). */
export const register: Register = (_root, app) => {
  const jobs = app.group('jobs', 'Long operations: parity sync and scrub, disk jobs');
  jobs
    .command('list')
    .description('list jobs, newest first')
    .option('--type <type>', 'only this type, e.g. parity.sync')
    .option('--state <state>', STATES.join(' | '))
    .option('--limit <n>', 'at most n jobs (1-500)', '20')
    .action(
      app.action<{ type?: string; state?: string; limit: string }>(async (ctx, o) => {
        const state = oneOf('--state', o.state, STATES);
        if (!/^\d{1,3}$/.test(o.limit)) throw new UsageError('--limit takes a whole number from 1 to 500');
        const res = await ctx.client.get('/jobs', {
          query: { limit: o.limit, ...(o.type ? { type: o.type } : {}), ...(state ? { state } : {}) },
        });
        ctx.out(res, () =>
          res.jobs.length === 0
            ? 'No jobs.\n'
            : table(
                ['id', 'type', 'target', 'state', 'progress', 'started'],
                res.jobs.map((j) => [
                  j.id,
                  j.type,
                  j.target,
                  j.state,
                  j.state === 'running' ? jobLine(j) : (j.error?.code ?? ''),
                  relative(j.startedAt),
                ]),
              ),
        );
      }),
    );
  jobs
    .command('show <id>')
    .description('show one job: state, phase, progress, result or error, the last lines of its output')
    .option('--follow', 'follow it with a progress bar until it ends')
    .action(
      app.action<{ follow?: boolean }>(async (ctx, o, [id]) => {
        const job = o.follow
          ? await followJob(ctx, { what: 'the job', start: null, id: id! })
          : await ctx.client.get('/jobs/{id}', { params: { id: id! } });
        ctx.out(job, () => jobText(job));
        if (o.follow) jobExit(job);
      }),
    );
  jobs
    .command('cancel <id>')
    .description('cancel a running job where that is safe (it stops cleanly; the next run resumes)')
    .action(
      app.action(async (ctx, _o, [id]) => {
        const job = await ctx.client.delete('/jobs/{id}', { params: { id: id! } });
        ctx.out(job, () => `Cancelling the ${job.type} job ${job.id}; it stops cleanly.\n`);
      }),
    );
};
