/** Share definitions (08 §6): create, list, get, update, delete. */
import {
  ensureBranchDirectories,
  planShareCreate,
  planShareUpdate,
  shareBranches,
  shareBusy,
  shareNotFound,
  toShare,
} from '@appliance/shares';
import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { AppContext } from '../../context.ts';
import { shares } from '../../db/schema.ts';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { writeThenRegenerate } from './regenerate.ts';
import { ShareCreateBody, ShareNameParams, ShareSchema, ShareUpdateBody } from './schemas.ts';
import { deleteShareRows, findShare, listShares, shareEnvironment, shareToRow } from './store.ts';

/** Share create/update/delete run one at a time: the directory work happens outside the write job. */
const SHARES_LOCK = 'shares:definitions';
const withSharesLock = <T>(ctx: AppContext, fn: () => Promise<T>): Promise<T> =>
  ctx.locks.run(SHARES_LOCK, fn);

export const shareRoutes = [
  defineRoute({
    method: 'POST',
    path: '/shares',
    role: 'admin',
    summary: 'Create a share (closed until access is granted)',
    tags: ['shares'],
    body: ShareCreateBody,
    responses: { 201: { description: 'The new share', schema: ShareSchema } },
    handler: ({ ctx, actor, body }) =>
      withSharesLock(ctx, async () => {
        const now = ctx.clock.now().toISOString();
        const env = shareEnvironment(ctx.db);
        const share = planShareCreate(body, env, now);
        await ensureBranchDirectories(ctx.paths, shareBranches(share.name, share.cacheMode, env.disks));
        await writeThenRegenerate(ctx, (db) => {
          planShareCreate(body, shareEnvironment(db), now);
          db.insert(shares).values(shareToRow(share)).run();
          ctx.audit.record(db, actor, {
            operation: 'share.create',
            target: share.name,
            details: { cacheMode: share.cacheMode, createPolicy: share.createPolicy, smb: share.smb },
          });
        });
        return created(toShare(share));
      }),
  }),
  defineRoute({
    method: 'GET',
    path: '/shares',
    role: 'viewer',
    summary: 'List shares by lowercase name',
    tags: ['shares'],
    responses: { 200: { description: 'Shares', schema: v.object({ shares: v.array(ShareSchema) }) } },
    handler: ({ ctx }) => ok({ shares: listShares(ctx.db).map(toShare) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/shares/:name',
    role: 'viewer',
    summary: 'One share (exact name)',
    tags: ['shares'],
    params: ShareNameParams,
    responses: { 200: { description: 'The share', schema: ShareSchema } },
    handler: ({ ctx, params }) => {
      const share = findShare(ctx.db, params.name);
      if (!share) throw shareNotFound(params.name);
      return ok(toShare(share));
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/shares/:name',
    role: 'admin',
    summary: 'Replace a share’s cache mode, create policy and SMB settings',
    tags: ['shares'],
    params: ShareNameParams,
    body: ShareUpdateBody,
    responses: { 200: { description: 'The share', schema: ShareSchema } },
    handler: ({ ctx, actor, params, body }) =>
      withSharesLock(ctx, async () => {
        const now = ctx.clock.now().toISOString();
        const existing = findShare(ctx.db, params.name);
        if (!existing) throw shareNotFound(params.name);
        const env = shareEnvironment(ctx.db);
        const next = planShareUpdate(existing, body, env, now);
        await ensureBranchDirectories(ctx.paths, shareBranches(next.name, next.cacheMode, env.disks));
        await writeThenRegenerate(ctx, (db) => {
          const current = findShare(db, params.name);
          if (!current) throw shareNotFound(params.name);
          planShareUpdate(current, body, shareEnvironment(db), now);
          db.update(shares).set(shareToRow(next)).where(eq(shares.name, next.name)).run();
          ctx.audit.record(db, actor, {
            operation: 'share.update',
            target: next.name,
            details: { cacheMode: next.cacheMode, createPolicy: next.createPolicy, smb: next.smb },
          });
        });
        return ok(toShare(next));
      }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/shares/:name',
    role: 'admin',
    summary: 'Delete a share definition and its grants (its files stay on the disks)',
    tags: ['shares'],
    params: ShareNameParams,
    responses: { 204: { description: 'Deleted' } },
    handler: ({ ctx, actor, params }) =>
      withSharesLock(ctx, async () => {
        if (!findShare(ctx.db, params.name)) throw shareNotFound(params.name);
        if (ctx.hooks.shareDataDeleteRunning(params.name)) throw shareBusy(params.name);
        await writeThenRegenerate(ctx, (db) => {
          if (!findShare(db, params.name)) throw shareNotFound(params.name);
          if (ctx.hooks.shareDataDeleteRunning(params.name)) throw shareBusy(params.name);
          deleteShareRows(db, params.name);
          ctx.audit.record(db, actor, { operation: 'share.delete', target: params.name });
        });
        return noContent();
      }),
  }),
];
