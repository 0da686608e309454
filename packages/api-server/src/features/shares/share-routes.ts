/** Share definitions (08 §6): create, list, get, update, delete. The operations are @appliance/shares'. */
import { createShare, deleteShare, getShare, toShare, updateShare } from '@appliance/shares';
import * as v from 'valibot';
import { created, defineRoute, noContent, ok } from '../../http/route.ts';
import { sharePorts } from './deps.ts';
import { ShareCreateBody, ShareNameParams, ShareSchema, ShareUpdateBody } from './schemas.ts';
import { listShares } from './store.ts';

export const shareRoutes = [
  defineRoute({
    method: 'POST',
    path: '/shares',
    role: 'admin',
    summary: 'Create a share (closed until access is granted)',
    tags: ['shares'],
    body: ShareCreateBody,
    responses: { 201: { description: 'The new share', schema: ShareSchema } },
    handler: async ({ ctx, actor, body }) =>
      created(toShare(await createShare(sharePorts(ctx, actor), body))),
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
    handler: ({ ctx, params }) => ok(toShare(getShare(sharePorts(ctx, null), params.name))),
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
    handler: async ({ ctx, actor, params, body }) =>
      ok(toShare(await updateShare(sharePorts(ctx, actor), params.name, body))),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/shares/:name',
    role: 'admin',
    summary: 'Delete a share definition and its grants (its files stay on the disks)',
    tags: ['shares'],
    params: ShareNameParams,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ ctx, actor, params }) => {
      await deleteShare(sharePorts(ctx, actor), params.name);
      return noContent();
    },
  }),
];
