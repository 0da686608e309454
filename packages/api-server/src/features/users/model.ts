import fs from 'node:fs';
import { AppError } from '@appliance/common';
import { eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import { users } from '../../db/schema.ts';
import { Iso } from '../../http/schemas.ts';

export type UserRow = typeof users.$inferSelect;

export const UserSchema = v.object({
  id: v.string(),
  username: v.string(),
  role: v.picklist(['admin', 'viewer', 'share-only']),
  hasPassword: v.boolean(),
  createdAt: Iso,
  updatedAt: Iso,
});

export function toUser(row: UserRow): v.InferOutput<typeof UserSchema> {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    hasPassword: row.passwordHash !== null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export const userNotFound = (id: string) =>
  new AppError(404, 'user_not_found', `No user has the id ${id}.`, { userId: id });

export function findUser(db: Db, id: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

export function usernameTaken(db: Db, username: string): boolean {
  return (
    db
      .select({ id: users.id })
      .from(users)
      .where(sql`lower(${users.username}) = lower(${username})`)
      .get() !== undefined
  );
}

/** 08 §4.1: a name of the host's passwd database not created by the appliance is unavailable. */
export function hostAccountExists(ctx: AppContext, username: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(ctx.paths.etcPasswd, 'utf8');
  } catch {
    return false;
  }
  const lower = username.toLowerCase();
  return text.split('\n').some((line) => line.split(':')[0] === lower);
}

/**
 * Refuses a name taken by a user or by a host account. `host: false` skips the host check: inside
 * the write transaction that follows the Samba side effect, the host account just created for
 * this user (useradd) is no longer a reason to refuse (the check ran before it).
 */
export function checkNewUsername(
  ctx: AppContext,
  db: Db,
  username: string,
  options: { host?: boolean } = {},
): void {
  if (usernameTaken(db, username)) {
    throw new AppError(
      409,
      'user_exists',
      `A user named ${username} already exists (names are compared ignoring case).`,
    );
  }
  if (options.host !== false && hostAccountExists(ctx, username)) {
    throw new AppError(
      409,
      'username_unavailable',
      `${username} is a system account of this machine; choose another name.`,
    );
  }
}
