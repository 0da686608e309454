import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { api, jobTitle } from '../api.ts';
import { ErrorNote, JobProgress, StateBadge } from '../ui.tsx';

/**
 * A job started from a page, followed live: the shell's `GET /events` patches `['job', id]` with
 * its phase, percent and bytes; when it ends, `onEnd` refetches what it changed. The bar shows
 * while it runs; a failure shows the job's error sentence.
 */
export function JobLine({ id, testId, onEnd }: { id: string; testId: string; onEnd?: () => void }) {
  const qc = useQueryClient();
  const job = useQuery({
    queryKey: ['job', id],
    queryFn: () => api.get('/jobs/{id}', { params: { id } }),
    refetchInterval: (q) =>
      q.state.data?.state === 'running' || q.state.data?.state === 'queued' ? 3000 : false,
  });
  const j = job.data;
  const active = !j || j.state === 'running' || j.state === 'queued';
  useEffect(() => {
    if (!active) {
      onEnd?.();
      void qc.invalidateQueries({ queryKey: ['jobs'] });
    }
  }, [active, onEnd, qc]);
  if (!j) return <ErrorNote error={job.error} />;
  return (
    <div data-testid={testId}>
      <p>
        <Link to={`/jobs/${j.id}`}>{jobTitle(j.type)}</Link>: <StateBadge state={j.state} />
      </p>
      <JobProgress job={j} />
    </div>
  );
}
