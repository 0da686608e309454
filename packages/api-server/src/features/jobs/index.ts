import { jobPage, requireJob, startRetention } from '@appliance/jobs';
import { nodeTimers } from '@appliance/jobs/node';
import { defineRoute, ok } from '../../http/route.ts';
import type { Feature } from '../feature.ts';
import { JobListQuery, JobListSchema, JobParams, JobSchema } from './schemas.ts';

/** `/jobs` (09): every long operation's row, live progress while it runs, cancel where safe. */
export const jobsFeature: Feature = {
  name: 'jobs',
  start: (ctx) => {
    // ended jobs kept 90 days (the newest 20 of each type always): @appliance/jobs' retention
    return startRetention(ctx.jobs, ctx.clock, nodeTimers);
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
      handler: ({ ctx, query }) => ok(jobPage(ctx.jobs, query)),
    }),
    defineRoute({
      method: 'GET',
      path: '/jobs/:id',
      role: 'viewer',
      summary: 'One job: state, phase, progress, ETA, output tail, result or error',
      tags: ['jobs'],
      params: JobParams,
      responses: { 200: { description: 'The job', schema: JobSchema } },
      handler: ({ ctx, params }) => ok(requireJob(ctx.jobs, params.id)),
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
