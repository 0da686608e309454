import { notFound } from '@appliance/common';
import { defineRoute, ok } from '../../http/route.ts';
import type { Feature } from '../feature.ts';
import { JobListQuery, JobListSchema, JobParams, JobSchema } from './schemas.ts';

const DAY = 24 * 3600 * 1000;

/** `/jobs` (09): every long operation's row, live progress while it runs, cancel where safe. */
export const jobsFeature: Feature = {
  name: 'jobs',
  start: (ctx) => {
    const prune = () => ctx.jobs.prune(new Date(ctx.clock.now().getTime() - 90 * DAY)).catch(() => undefined);
    void prune();
    const timer = setInterval(prune, DAY);
    timer.unref();
    return () => clearInterval(timer);
  },
  routes: [
    defineRoute({
      method: 'GET',
      path: '/jobs',
      role: 'viewer',
      summary: 'Jobs, newest first (running ones with live progress)',
      tags: ['jobs'],
      query: JobListQuery,
      responses: { 200: { description: 'A page of jobs', schema: JobListSchema } },
      handler: ({ ctx, query }) => {
        const jobs = ctx.jobs.list({
          limit: query.limit,
          before: query.before ?? null,
          type: query.type ?? null,
          state: query.state ?? null,
        });
        return ok({ jobs, nextBefore: jobs.length === query.limit ? (jobs.at(-1)?.id ?? null) : null });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/jobs/:id',
      role: 'viewer',
      summary: 'One job: state, phase, progress, ETA, output tail, result or error',
      tags: ['jobs'],
      params: JobParams,
      responses: { 200: { description: 'The job', schema: JobSchema } },
      handler: ({ ctx, params }) => {
        const job = ctx.jobs.get(params.id);
        if (!job)
          throw notFound('job_not_found', `No job ${params.id}: list the jobs with GET /api/v1/jobs.`, {
            id: params.id,
          });
        return ok(job);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/jobs/:id',
      role: 'admin',
      summary: 'Cancel a running job where that is safe (its phase says so); it stops cleanly',
      tags: ['jobs'],
      params: JobParams,
      responses: { 202: { description: 'The job, being cancelled', schema: JobSchema } },
      handler: async ({ ctx, actor, params }) => ({
        status: 202,
        body: await ctx.jobs.cancel(params.id, actor),
      }),
    }),
  ],
};
