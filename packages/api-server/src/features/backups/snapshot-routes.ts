/**
 * The routes of a plan's snapshots: restic's list, the configuration archive a snapshot holds, and
 * a restore (a job of @appliance/backups) of a share's or a stack's snapshot.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import {
  backupRestoreJob,
  checkExternalDestination,
  checkFolderTarget,
  checkRestorePaths,
  configArchiveOf,
  listSnapshots,
  type PartRef,
  passwordMissing,
  repositoryPath,
  restorePhrase,
} from '@appliance/backups';
import { AppError, confirmationRequired } from '@appliance/common';
import { externalMountpoint } from '@appliance/external-disk';
import { accepted, defineRoute, ok } from '../../http/route.ts';
import { ErrorBody } from '../../http/schemas.ts';
import { JobSchema } from '../jobs/schemas.ts';
import { destinationDeps, readPorts, requirePlan } from './deps.ts';
import { RestoreBody, SnapshotListSchema, SnapshotParams, SnapshotQuery, SnapshotsQuery } from './schemas.ts';

const errors = {
  400: { description: 'Bad input', schema: ErrorBody },
  404: { description: 'Unknown plan', schema: ErrorBody },
};

export const snapshotRoutes = [
  defineRoute({
    method: 'GET',
    path: '/backups/snapshots',
    role: 'viewer',
    summary: "A plan's snapshots as restic lists them, newest first, with time and size",
    tags: ['backups'],
    query: SnapshotsQuery,
    responses: {
      200: { description: 'The snapshots', schema: SnapshotListSchema },
      ...errors,
      409: { description: 'backup_destination_missing, job_running', schema: ErrorBody },
    },
    handler: async ({ ctx, query }) => {
      const plan = requirePlan(ctx, query.plan);
      const mountpoint = externalMountpoint(plan.destination);
      return ok({
        plan: plan.name,
        destination: plan.destination,
        repository: repositoryPath(mountpoint, plan.name),
        snapshots: await listSnapshots(readPorts(ctx), plan),
      });
    },
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
      const plan = requirePlan(ctx, query.plan);
      const archive = await configArchiveOf(readPorts(ctx), plan, params.id);
      const stream = fs.createReadStream(archive.file);
      const cleanup = () => void archive.done();
      stream.once('close', cleanup);
      const stamp = archive.time.replace(/[-:]/g, '').replace(/\.\d+/, '').replace(/Z$/, 'Z');
      return new Response(Readable.toWeb(stream) as ReadableStream, {
        status: 200,
        headers: {
          'Content-Type': 'application/zstd',
          'Cache-Control': 'no-store',
          'Content-Disposition': `attachment; filename="appliance-config-${plan.name}-${stamp.slice(0, 15)}Z.tar.zst"`,
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
      202: { description: 'The restore job (Location: /api/v1/jobs/<id>)', schema: JobSchema },
      ...errors,
      409: {
        description: 'confirmation_required, backup_destination_missing, job_running',
        schema: ErrorBody,
      },
    },
    handler: async ({ ctx, actor, body }) => {
      if ((body.share === undefined) === (body.stack === undefined))
        throw new AppError(
          400,
          'bad_request',
          'Name what the snapshot holds: exactly one of share or stack (the configuration is restored with appliance backups restore --configuration, through the config import).',
          { issues: [{ path: 'share', message: 'give exactly one of share or stack' }] },
        );
      const part: PartRef =
        body.share !== undefined ? { kind: 'share', name: body.share } : { kind: 'stack', name: body.stack! };
      const checked = checkRestorePaths(body.paths);
      if ('error' in checked) throw checked.error;
      const folder = body.folder ?? null;
      if (folder !== null) {
        const bad = checkFolderTarget(folder);
        if (bad) throw bad;
      }
      const plan = requirePlan(ctx, body.plan);
      if (plan.sealedPassword === null) throw passwordMissing(plan.name);
      if (folder === null && body.confirmation !== restorePhrase(part)) {
        const e = confirmationRequired(restorePhrase(part));
        throw new AppError(
          409,
          e.code,
          `Restoring into its place moves what is there now aside (<name>.before-restore-<time>) and puts the snapshot's files in its place. Type exactly: ${restorePhrase(part)}`,
          e.details,
        );
      }
      await checkExternalDestination(destinationDeps(ctx), plan.destination);
      const started = await ctx.jobs.start(
        backupRestoreJob,
        {
          plan: plan.name,
          destination: plan.destination,
          snapshot: body.snapshot,
          part,
          paths: checked.paths,
          folder,
        },
        {
          target: part.kind === 'share' ? `share:${part.name}` : `stack:${part.name}`,
          actor,
          auditOperation: 'backups.restore',
        },
      );
      return accepted(started.view);
    },
  }),
];
