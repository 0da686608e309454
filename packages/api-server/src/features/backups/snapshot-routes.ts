/**
 * The routes of a plan's snapshots: restic's list, the configuration archive a snapshot holds, and
 * a restore (a job of @appliance/backups) of a share's or a stack's snapshot.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { snapshotConfigArchive, snapshotList, startRestore } from '@appliance/backups';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import { jobAccepted } from '../jobs/schemas.ts';
import { planPorts, readPorts } from './deps.ts';
import {
  PlanErrors as errors,
  RestoreBody,
  SnapshotListSchema,
  SnapshotParams,
  SnapshotQuery,
} from './schemas.ts';

export const snapshotRoutes = [
  defineRoute({
    method: 'GET',
    path: '/backups/snapshots',
    role: 'viewer',
    summary: "A plan's snapshots as restic lists them, newest first, with time and size",
    tags: ['backups'],
    query: SnapshotQuery,
    responses: {
      200: { description: 'The snapshots', schema: SnapshotListSchema },
      ...errors,
      409: { description: 'backup_destination_missing, job_running', schema: ErrorBody },
    },
    handler: async ({ ctx, query }) => ok(await snapshotList(readPorts(ctx), query.plan)),
  }),
  defineRoute({
    method: 'GET',
    path: '/backups/snapshots/:id/configuration',
    role: 'admin',
    summary:
      'The configuration archive a snapshot holds (restore it with the config import preview and import)',
    tags: ['backups'],
    params: SnapshotParams,
    query: SnapshotQuery,
    responses: {
      200: { description: 'The config archive (01 §1)', contentType: 'application/zstd' },
      ...errors,
    },
    handler: async ({ ctx, params, query }) => {
      const archive = await snapshotConfigArchive(readPorts(ctx), query.plan, params.id);
      const stream = fs.createReadStream(archive.file);
      const cleanup = () => void archive.done();
      stream.once('close', cleanup);
      return new Response(Readable.toWeb(stream) as ReadableStream, {
        status: 200,
        headers: {
          'Content-Type': 'application/zstd',
          'Cache-Control': 'no-store',
          'Content-Disposition': `attachment; filename="${archive.fileName}"`,
        },
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/backups/restore',
    role: 'admin',
    summary:
      'Restore a snapshot of a share or a stack’s app data (or chosen paths of it) into its place (typed confirmation; what is there is moved aside) or into a new folder',
    tags: ['backups'],
    body: RestoreBody,
    responses: {
      202: jobAccepted('The restore job'),
      ...errors,
      409: {
        description: 'confirmation_required, backup_destination_missing, job_running',
        schema: ErrorBody,
      },
    },
    handler: async ({ ctx, actor, body }) => accepted(await startRestore(planPorts(ctx, actor), body)),
  }),
];
