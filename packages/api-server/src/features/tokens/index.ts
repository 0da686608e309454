import { AppError } from '@appliance/common';
import { and, count, desc, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { apiTokens, users } from '../../db/schema.ts';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { IdParams, Iso } from '../../http/schemas.ts';
import { generateToken, roleAtLeast, tokenHash } from '../../services/tokens.ts';
import type { Authenticator } from '../../services/auth.ts';
import type { Feature } from '../feature.ts';
import { findUser, userNotFound } from '../users/model.ts';

export const MAX_TOKENS_PER_ACCOUNT = 100;

const TokenSchema = v.object({
  id: v.string(),
  name: v.string(),
  role: v.picklist(['admin', 'viewer']),
  userId: v.string(),
  username: v.string(),
  createdAt: Iso,
  expiresAt: v.nullable(Iso),
  /** The last request made with the token, exact to within a minute; null when never used. */
  lastUsedAt: v.nullable(Iso),
});

const CreateBody = v.strictObject({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(128, 'must be at most 128 characters'),
  ),
  role: v.picklist(['admin', 'viewer'], 'must be admin or viewer'),
  expiresInSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(315_360_000))),
  userId: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f-]{36}$/, 'must be a lowercase UUID'))),
});

export const tokensFeature = (auth: Authenticator): Feature => ({
  name: 'tokens',
  // Password logins (Basic, on POST /tokens) cross the lock-out threshold (services/auth.ts).
  raises: ['login_failure_burst'],
  routes: [
    defineRoute({
      method: 'POST',
      path: '/tokens',
      role: 'viewer',
      allowBasic: true,
      summary: 'Create a personal API token (Bearer, Basic or the Unix socket)',
      tags: ['tokens'],
      body: CreateBody,
      responses: {
        201: {
          description: 'The token; `token` is shown only here',
          schema: v.object({ ...TokenSchema.entries, token: v.string() }),
        },
      },
      handler: async ({ ctx, actor, body }) => {
        const caller = actor!;
        if (body.userId !== undefined && caller.role !== 'admin') {
          throw new AppError(
            403,
            'forbidden',
            'Only the administrator may create tokens for another account.',
          );
        }
        const ownerId = body.userId ?? caller.userId;
        if (!ownerId) throw new AppError(409, 'setup_required', 'Create the administrator first.');
        const owner = findUser(ctx.db, ownerId);
        if (!owner) throw userNotFound(ownerId);
        if (owner.role === 'share-only') {
          throw new AppError(
            403,
            'share_only_no_api_token',
            'A file-sharing account cannot have API tokens.',
          );
        }
        if (!roleAtLeast(caller.role, body.role) || !roleAtLeast(owner.role, body.role)) {
          throw new AppError(
            403,
            'token_role_exceeds_caller',
            `A ${body.role} token needs an account with at least that role; ask for a viewer token instead.`,
          );
        }
        const raw = generateToken(ctx.random.bytes);
        const now = ctx.clock.now();
        const expiresAt = body.expiresInSeconds
          ? new Date(now.getTime() + body.expiresInSeconds * 1000).toISOString()
          : null;
        const row = await ctx.writes.run((db) => {
          const n = db.select({ n: count() }).from(apiTokens).where(eq(apiTokens.userId, owner.id)).get()!.n;
          if (n >= MAX_TOKENS_PER_ACCOUNT) {
            throw new AppError(
              409,
              'token_limit_reached',
              `This account already has ${MAX_TOKENS_PER_ACCOUNT} tokens; revoke one first.`,
            );
          }
          const inserted = db
            .insert(apiTokens)
            .values({
              id: ctx.random.uuid(),
              tokenHash: tokenHash(raw),
              userId: owner.id,
              name: body.name,
              role: body.role,
              createdAt: now.toISOString(),
              expiresAt,
            })
            .returning()
            .get();
          ctx.audit.record(db, caller, {
            operation: 'token.create',
            target: owner.username,
            details: { tokenId: inserted.id, name: body.name, role: body.role },
          });
          return inserted;
        });
        return created({
          id: row.id,
          name: row.name,
          role: row.role,
          userId: owner.id,
          username: owner.username,
          createdAt: row.createdAt,
          expiresAt: row.expiresAt,
          lastUsedAt: null,
          token: raw,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/tokens',
      role: 'viewer',
      summary: 'List tokens (all for the admin, your own for a viewer)',
      tags: ['tokens'],
      responses: {
        200: { description: 'Tokens, newest first', schema: v.object({ tokens: v.array(TokenSchema) }) },
      },
      handler: ({ ctx, actor }) => {
        const base = ctx.db
          .select({ t: apiTokens, username: users.username })
          .from(apiTokens)
          .innerJoin(users, eq(users.id, apiTokens.userId));
        const rows = (actor!.role === 'admin' ? base : base.where(eq(apiTokens.userId, actor!.userId ?? '')))
          .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id))
          .all();
        return ok({
          tokens: rows.map(({ t, username }) => ({
            id: t.id,
            name: t.name,
            role: t.role,
            userId: t.userId,
            username,
            createdAt: t.createdAt,
            expiresAt: t.expiresAt,
            lastUsedAt: auth.usage.lastUsedAt(t.id, t.lastUsedAt),
          })),
        });
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/tokens/:id',
      role: 'viewer',
      summary: 'Revoke a token (a viewer only its own); revoking the calling token logs out',
      tags: ['tokens'],
      params: IdParams,
      responses: { 204: { description: 'Revoked' } },
      handler: async ({ ctx, actor, params }) => {
        const caller = actor!;
        await ctx.writes.run((db) => {
          const where =
            caller.role === 'admin'
              ? eq(apiTokens.id, params.id)
              : and(eq(apiTokens.id, params.id), eq(apiTokens.userId, caller.userId ?? ''));
          const row = db
            .delete(apiTokens)
            .where(where)
            .returning({ id: apiTokens.id, userId: apiTokens.userId })
            .get();
          if (!row) throw new AppError(404, 'token_not_found', `No token of yours has the id ${params.id}.`);
          ctx.audit.record(db, caller, { operation: 'token.revoke', target: params.id });
        });
        return noContent();
      },
    }),
  ],
});
