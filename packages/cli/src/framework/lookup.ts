/** Names to ids (users, groups, channels), so no command asks for a UUID. */
import type { Ctx } from './context.ts';
import { Refusal, UsageError } from './exit.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function userByName(ctx: Ctx, name: string) {
  const { users } = await ctx.client.get('/users');
  const found = users.find(
    (u) => u.username.toLowerCase() === name.toLowerCase() || u.id === name.toLowerCase(),
  );
  if (!found) throw new Refusal('user_not_found', `No user is named "${name}": see appliance users list.`);
  return found;
}

export async function groupsByName(ctx: Ctx) {
  const { groups } = await ctx.client.get('/user-groups');
  return (name: string) => {
    const found = groups.find(
      (g) => g.name.toLowerCase() === name.toLowerCase() || g.id === name.toLowerCase(),
    );
    if (!found) throw new Refusal('group_not_found', `No user group is named "${name}".`);
    return found;
  };
}

export async function channelByName(ctx: Ctx, name: string) {
  const { channels } = await ctx.client.get('/notifications/channels');
  const found = channels.find(
    (c) => c.name.toLowerCase() === name.toLowerCase() || (UUID.test(name) && c.id === name.toLowerCase()),
  );
  if (!found)
    throw new Refusal(
      'notification_channel_not_found',
      `No notification channel is named "${name}": see appliance notifications channels list.`,
    );
  return found;
}

/** `name=value` → [name, value]; anything else is a usage error naming the option. */
export function pair(option: string, text: string): [string, string] {
  const i = text.indexOf('=');
  if (i <= 0) throw new UsageError(`${option} takes NAME=VALUE, not "${text}"`);
  return [text.slice(0, i), text.slice(i + 1)];
}

export type Access = 'none' | 'read-only' | 'read-write';

/** An access level (with the short forms rw/ro), or a usage error. */
export function accessLevel(option: string, text: string): Access {
  const a = ({ rw: 'read-write', ro: 'read-only' } as Record<string, string>)[text] ?? text;
  if (a !== 'none' && a !== 'read-only' && a !== 'read-write')
    throw new UsageError(`${option}: access must be read-write, read-only or none (rw, ro), not "${text}"`);
  return a;
}

/** Reads standard input to the end, without the final newline (passwords, secrets). */
export async function readStdin(ctx: Ctx): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export function oneOf<T extends string>(
  option: string,
  text: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text))
    throw new UsageError(`${option} must be one of ${allowed.join(', ')}, not "${text}"`);
  return text as T;
}
