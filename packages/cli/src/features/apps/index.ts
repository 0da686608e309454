import type { Register } from '../../framework/command.ts';
import { collect } from '../../framework/command.ts';
import type { Ctx } from '../../framework/context.ts';
import { UsageError } from '../../framework/exit.ts';
import { fields, table } from '../../framework/format.ts';
import { pair } from '../../framework/lookup.ts';
import { progressHelp, watchProgress } from '../../framework/progress.ts';
import { registerStacks } from './stacks.ts';

/** What each step of an install (the service's `template.install` progress events) does. */
const STEP_TEXT: Record<string, string> = {
  record: 'recording the stack',
  write_files: 'writing .env, docker-compose.yml and meta.json',
  compose_check: 'checking the files with the compose tool',
  finish: 'marking the stack installed',
};

interface PlanOptions {
  name?: string;
  input: string[];
  network?: string;
  restart?: string;
  cpus?: string;
  memory?: string;
}

function planBody(o: PlanOptions) {
  const restart = o.restart as 'no' | 'always' | 'unless-stopped' | 'on-failure' | undefined;
  if (restart && !['no', 'always', 'unless-stopped', 'on-failure'].includes(restart))
    throw new UsageError('--restart must be no, always, unless-stopped or on-failure');
  const num = (option: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isFinite(n)) throw new UsageError(`${option} takes a number, not "${text}"`);
    return n;
  };
  const cpus = num('--cpus', o.cpus);
  const memoryMiB = num('--memory-mib', o.memory);
  return {
    ...(o.name ? { name: o.name } : {}),
    ...(o.input.length ? { values: Object.fromEntries(o.input.map((i) => pair('--input', i))) } : {}),
    ...(o.network ? { networkMode: o.network } : {}),
    ...(restart ? { restart } : {}),
    ...(cpus !== undefined ? { cpus } : {}),
    ...(memoryMiB !== undefined ? { memoryMiB } : {}),
  };
}

type Plan = Awaited<ReturnType<typeof preview>>;
const preview = (ctx: Ctx, id: string, o: PlanOptions) =>
  ctx.client.post('/templates/{id}/preview', { params: { id }, body: planBody(o) });

function describePlan(p: Plan): string {
  return (
    fields([
      ['template', `${p.template.source}/${p.template.id} (revision ${p.template.revision})`],
      ['title', p.title],
      ['stack', p.name],
      ['services', p.services.join(', ')],
    ]) +
    table(
      ['input', 'value', 'note'],
      p.inputs.map((i) => [
        i.name,
        i.kind === 'secret' || i.generated ? (i.value ? '(generated)' : '') : i.value,
        i.error ?? (i.required && !i.value ? 'required' : (i.description ?? i.label ?? '')),
      ]),
    ) +
    (p.privileges.length
      ? `Privileges:\n${p.privileges.map((x) => `  ${x.service}: ${x.description}\n`).join('')}`
      : '') +
    (p.warnings.length ? `Warnings:\n${p.warnings.map((w) => `  ${w.class}: ${w.message}\n`).join('')}` : '')
  );
}

const planOptions = (cmd: import('commander').Command) =>
  cmd
    .option('--name <stack>', 'the stack name (default: the template id)')
    .option('--input <key=value>', 'a template input (repeatable)', collect, [])
    .option('--network <mode>', 'the network mode')
    .option('--restart <policy>', 'no | always | unless-stopped | on-failure')
    .option('--cpus <n>', 'CPU limit')
    .option('--memory-mib <n>', 'memory limit in MiB');

/** `appliance templates list|preview|install` (02) and `appliance apps …` (issue 35). */
export const register: Register = (root, app) => {
  registerStacks(root, app);
  const templates = app.group('templates', 'App templates of the catalog');
  templates
    .command('list')
    .description('list the catalog templates')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/catalog');
        ctx.out(res, () =>
          table(
            ['id', 'title', 'source', 'categories', 'installed as'],
            res.templates.map((t) => [t.id, t.title, t.source, t.categories.join(', '), t.stacks.join(', ')]),
          ),
        );
      }),
    );
  planOptions(
    templates.command('preview').description('preview an install (writes nothing)').argument('<template>'),
  ).action(
    app.action<PlanOptions & { memoryMib?: string }>(async (ctx, o, [id]) => {
      const p = await preview(ctx, id!, { ...o, ...(o.memoryMib ? { memory: o.memoryMib } : {}) });
      ctx.out(p, () => describePlan(p));
    }),
  );
  planOptions(
    templates
      .command('install')
      .description('install a template as a stack (nothing is started), showing its progress')
      .addHelpText(
        'after',
        progressHelp(
          'the steps of the install (record, write files, compose check, finish)',
          'template.install NAME: step 2/4: writing .env, docker-compose.yml and meta.json, 0s',
        ),
      )
      .argument('<template>')
      .option('--plan-digest <digest>', 'install only if the plan is still this preview'),
  ).action(
    app.action<PlanOptions & { memoryMib?: string; planDigest?: string }>(async (ctx, o, [id]) => {
      const body = planBody({ ...o, ...(o.memoryMib ? { memory: o.memoryMib } : {}) });
      const name = body.name ?? id!;
      const res = await watchProgress(ctx, {
        operation: 'template.install',
        target: name,
        what: `the install of the stack ${name}`,
        start: () =>
          ctx.client.post('/templates/{id}/install', {
            params: { id: id! },
            body: { ...body, ...(o.planDigest ? { planDigest: o.planDigest } : {}) },
          }),
        render: (p) => {
          const step = String(p['step'] ?? '');
          return {
            text: `step ${p['stepIndex']}/${p['steps']}: ${STEP_TEXT[step] ?? step}${p['ok'] === false ? ' (failed)' : ''}`,
            value: Number(p['stepIndex'] ?? 0),
            total: Number(p['steps'] ?? 0),
          };
        },
      });
      ctx.out(
        res,
        () =>
          `${describePlan(res.plan)}Installed the stack ${res.stack.name} in ${res.stack.directory} (not started).\n`,
      );
    }),
  );
};
