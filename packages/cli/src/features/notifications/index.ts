import type { Register } from '../../framework/command.ts';
import { collect } from '../../framework/command.ts';
import type { Ctx } from '../../framework/context.ts';
import { Refusal, UsageError } from '../../framework/exit.ts';
import { fields, relative, table } from '../../framework/format.ts';
import { channelByName, oneOf, pair, readStdin } from '../../framework/lookup.ts';

const SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;
const TYPES = ['webhook', 'ntfy', 'gotify', 'discord', 'email'] as const;

async function channelNames(ctx: Ctx): Promise<Map<string, string>> {
  const { channels } = await ctx.client.get('/notifications/channels');
  return new Map(channels.map((c) => [c.id, c.name]));
}

async function eventType(ctx: Ctx, name: string) {
  const { eventTypes } = await ctx.client.get('/notifications/event-types');
  const found = eventTypes.find((e) => e.eventType === name);
  if (!found)
    throw new Refusal(
      'unknown_event_type',
      `No event type is named "${name}": see appliance notifications routing list.`,
    );
  return found;
}

/** `appliance notifications routing list|show|set|reset`, `channels list|add|test` (04, 08 §7). */
export const register: Register = (_root, app) => {
  const notifications = app.group('notifications', 'Notification routing and channels');
  const routing = notifications.command('routing').description('which events go to which channels');
  type Entry = { eventType: string; severity: string; channelIds: string[]; isDefaultSeverity: boolean };
  const rows = (entries: Entry[], names: Map<string, string>) =>
    table(
      ['event', 'severity', 'channels'],
      entries.map((e) => [
        e.eventType,
        `${e.severity}${e.isDefaultSeverity ? '' : ' *'}`,
        e.channelIds.map((id) => names.get(id) ?? id).join(', '),
      ]),
    );
  routing
    .command('list')
    .description('the routing of every event type (* = severity changed from the default)')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/notifications/routing');
        if (ctx.json) return ctx.out(res, () => '');
        ctx.io.stdout.write(rows(res.routing, await channelNames(ctx)));
      }),
    );
  routing
    .command('show')
    .description("one event type's severity and channels")
    .argument('<event-type>')
    .action(
      app.action(async (ctx, _o, [name]) => {
        const res = await ctx.client.get('/notifications/routing/{eventType}', {
          params: { eventType: name! },
        });
        if (ctx.json) return ctx.out(res, () => '');
        const [names, type] = await Promise.all([channelNames(ctx), eventType(ctx, name!)]);
        ctx.io.stdout.write(
          fields([
            ['event', res.eventType],
            ['description', type.description],
            [
              'severity',
              `${res.severity}${res.isDefaultSeverity ? ' (default)' : ` (default ${type.defaultSeverity})`}`,
            ],
            ['channels', res.channelIds.map((id) => names.get(id) ?? id).join(', ')],
          ]),
        );
      }),
    );
  routing
    .command('set')
    .description("set an event type's severity and channels (by name)")
    .argument('<event-type>')
    .option('--severity <severity>', SEVERITIES.join(' | '))
    .option('--channel <name>', 'a channel to send it to (repeatable; replaces the list)', collect, [])
    .option('--no-channels', 'send it to no channel')
    .action(
      app.action<{ severity?: string; channel: string[]; channels: boolean }>(async (ctx, o, [name]) => {
        const severity = oneOf('--severity', o.severity, SEVERITIES);
        if (!severity && o.channel.length === 0 && o.channels)
          throw new UsageError('give --severity, --channel NAME or --no-channels');
        if (!o.channels && o.channel.length > 0)
          throw new UsageError('--channel and --no-channels contradict');
        const current = await ctx.client.get('/notifications/routing/{eventType}', {
          params: { eventType: name! },
        });
        const channelIds = !o.channels
          ? []
          : o.channel.length > 0
            ? await Promise.all(o.channel.map(async (c) => (await channelByName(ctx, c)).id))
            : current.channelIds;
        const res = await ctx.client.put('/notifications/routing/{eventType}', {
          params: { eventType: name! },
          body: { severity: severity ?? (current.severity as (typeof SEVERITIES)[number]), channelIds },
        });
        if (ctx.json) return ctx.out(res, () => '');
        ctx.io.stdout.write(rows([res], await channelNames(ctx)));
      }),
    );
  routing
    .command('reset')
    .description('back to the default severity and no channels')
    .argument('<event-type>')
    .action(
      app.action(async (ctx, _o, [name]) => {
        const type = await eventType(ctx, name!);
        const res = await ctx.client.put('/notifications/routing/{eventType}', {
          params: { eventType: name! },
          body: { severity: type.defaultSeverity, channelIds: [] },
        });
        ctx.out(res, () => rows([res], new Map()));
      }),
    );

  const channels = notifications.command('channels').description('where notifications are sent');
  channels
    .command('list')
    .description('list channels')
    .action(
      app.action(async (ctx) => {
        const res = await ctx.client.get('/notifications/channels');
        ctx.out(res, () =>
          table(
            ['name', 'type', 'enabled', 'secret', 'created'],
            res.channels.map((c) => [
              c.name,
              c.type,
              c.enabled ? 'yes' : 'no',
              c.hasSecret ? 'set' : 'none',
              relative(c.createdAt),
            ]),
          ),
        );
      }),
    );
  channels
    .command('add')
    .description('add a channel (the secret is read from standard input with --secret-stdin)')
    .argument('<name>')
    .requiredOption('--type <type>', TYPES.join(' | '))
    .option('--endpoint <url>', 'webhook URL, ntfy server or gotify server')
    .option('--method <method>', 'webhook method: POST (default) or PUT')
    .option('--header <name=value>', 'webhook header (repeatable)', collect, [])
    .option('--auth-header <name>', 'webhook header that carries the secret')
    .option('--topic <topic>', 'ntfy topic')
    .option('--smtp-host <host>', 'email: SMTP server')
    .option('--smtp-port <port>', 'email: SMTP port')
    .option('--smtp-user <name>', 'email: SMTP user name')
    .option('--from <address>', 'email: sender')
    .option('--to <address>', 'email: recipient (repeatable)', collect, [])
    .option('--no-starttls', 'email: no STARTTLS')
    .option('--disabled', 'create it disabled')
    .option('--secret-stdin', 'read the secret (token, password, Discord URL) from standard input')
    .action(
      app.action<{
        type: string;
        endpoint?: string;
        method?: string;
        header: string[];
        authHeader?: string;
        topic?: string;
        smtpHost?: string;
        smtpPort?: string;
        smtpUser?: string;
        from?: string;
        to: string[];
        starttls: boolean;
        disabled?: boolean;
        secretStdin?: boolean;
      }>(async (ctx, o, [name]) => {
        const type = oneOf('--type', o.type, TYPES)!;
        const need = (value: string | undefined, option: string) => {
          if (value === undefined) throw new UsageError(`a ${type} channel needs ${option}`);
          return value;
        };
        const common = {
          name: name!,
          enabled: !o.disabled,
          ...(o.secretStdin ? { secret: await readStdin(ctx) } : {}),
        };
        let body: Record<string, unknown>;
        if (type === 'webhook')
          body = {
            ...common,
            type,
            webhookUrl: need(o.endpoint, '--endpoint'),
            ...(o.method ? { webhookMethod: oneOf('--method', o.method, ['POST', 'PUT'] as const) } : {}),
            ...(o.header.length
              ? { webhookHeaders: Object.fromEntries(o.header.map((h) => pair('--header', h))) }
              : {}),
            ...(o.authHeader ? { webhookAuthHeaderName: o.authHeader } : {}),
          };
        else if (type === 'ntfy')
          body = {
            ...common,
            type,
            ntfyUrl: need(o.endpoint, '--endpoint'),
            ntfyTopic: need(o.topic, '--topic'),
          };
        else if (type === 'gotify') body = { ...common, type, gotifyUrl: need(o.endpoint, '--endpoint') };
        else if (type === 'discord') body = { ...common, type };
        else {
          const port = Number(need(o.smtpPort, '--smtp-port'));
          if (!Number.isInteger(port)) throw new UsageError('--smtp-port takes a port number');
          if (o.to.length === 0) throw new UsageError('an email channel needs --to ADDRESS');
          body = {
            ...common,
            type,
            emailHost: need(o.smtpHost, '--smtp-host'),
            emailPort: port,
            emailFrom: need(o.from, '--from'),
            emailTo: o.to,
            emailStartTls: o.starttls,
            ...(o.smtpUser ? { emailUsername: o.smtpUser } : {}),
          };
        }
        const c = await ctx.client.post('/notifications/channels', { body: body as never });
        ctx.out(c, () =>
          fields([
            ['channel', c.name],
            ['type', c.type],
            ['enabled', c.enabled ? 'yes' : 'no'],
            ['secret', c.hasSecret ? 'set' : 'none'],
          ]),
        );
      }),
    );
  channels
    .command('test')
    .description('send one test message now')
    .argument('<name>')
    .action(
      app.action(async (ctx, _o, [name]) => {
        const channel = await channelByName(ctx, name!);
        const res = await ctx.client.post('/notifications/channels/{id}/test', {
          params: { id: channel.id },
        });
        if (ctx.json) ctx.out(res, () => '');
        if (!res.success)
          throw new Refusal(
            'delivery_failed',
            `The test message to ${channel.name} failed: ${res.error ?? 'no reason given'}.`,
          );
        if (!ctx.json) ctx.io.stdout.write(`Test message sent to ${channel.name}.\n`);
      }),
    );
};
