/** What `GET /jobs` and `GET /jobs/:id` answer, over the runner. */
import { notFound } from '@appliance/common';
import type { JobListQuery } from './ports.ts';
import type { JobView } from './types.ts';

interface Reader {
  get(id: string): JobView | null;
  list(query: JobListQuery): JobView[];
}

/** A page of jobs, newest first; `nextBefore` (the last id) when the page is full, else null. */
export function jobPage(runner: Reader, query: JobListQuery): { jobs: JobView[]; nextBefore: string | null } {
  const jobs = runner.list(query);
  return { jobs, nextBefore: jobs.length === query.limit ? (jobs.at(-1)?.id ?? null) : null };
}

/** One job, or the refusal `job_not_found`. */
export function requireJob(runner: Reader, id: string): JobView {
  const job = runner.get(id);
  if (!job) throw notFound('job_not_found', `No job ${id}: list the jobs with GET /api/v1/jobs.`, { id });
  return job;
}
