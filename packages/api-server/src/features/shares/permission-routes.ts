/** Share access (06): the share-side and user-side editors over the same rows, and the access view. */
import {
  effectiveShareAccess,
  readSharePermissions,
  readUserPermissions,
  setSharePermissions,
  setUserPermissions,
} from '@appliance/shares';
import { defineRoute, ok } from '../../http/route.ts';
import { sharePorts } from './deps.ts';
import {
  ShareAccessSchema,
  ShareNameParams,
  SharePermissionsBody,
  SharePermissionsSchema,
  UserIdParams,
  UserPermissionsBody,
  UserPermissionsSchema,
} from './schemas.ts';
import { permissionStore } from './store.ts';

export const permissionRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/shares/:name/permissions',
    role: 'admin',
    summary: 'Replace a share’s per-user and per-group access (full replace)',
    tags: ['share permissions'],
    params: ShareNameParams,
    body: SharePermissionsBody,
    responses: { 200: { description: 'The share’s access, read back', schema: SharePermissionsSchema } },
    handler: async ({ ctx, actor, params, body }) =>
      ok(await setSharePermissions(sharePorts(ctx, actor), params.name, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/shares/:name/permissions',
    role: 'viewer',
    summary: 'A share’s per-user and per-group access rows',
    tags: ['share permissions'],
    params: ShareNameParams,
    responses: { 200: { description: 'The share’s access', schema: SharePermissionsSchema } },
    handler: ({ ctx, params }) => ok(readSharePermissions(permissionStore(ctx.db), params.name)),
  }),
  defineRoute({
    method: 'GET',
    path: '/shares/:name/access',
    role: 'viewer',
    summary: 'Effective access of every user on a share (what Samba enforces)',
    tags: ['share permissions'],
    params: ShareNameParams,
    responses: { 200: { description: 'Effective access', schema: ShareAccessSchema } },
    handler: ({ ctx, params }) => ok(effectiveShareAccess(sharePorts(ctx, null), params.name)),
  }),
  defineRoute({
    method: 'PUT',
    path: '/users/:id/permissions',
    role: 'admin',
    summary: 'Replace one user’s own access rows across all shares (full replace)',
    tags: ['share permissions'],
    params: UserIdParams,
    body: UserPermissionsBody,
    responses: { 200: { description: 'The user’s access, read back', schema: UserPermissionsSchema } },
    handler: async ({ ctx, actor, params, body }) =>
      ok(await setUserPermissions(sharePorts(ctx, actor), params.id, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/users/:id/permissions',
    role: 'viewer',
    summary: 'One user’s own access rows',
    tags: ['share permissions'],
    params: UserIdParams,
    responses: { 200: { description: 'The user’s access', schema: UserPermissionsSchema } },
    handler: ({ ctx, params }) => ok(readUserPermissions(permissionStore(ctx.db), params.id)),
  }),
];
