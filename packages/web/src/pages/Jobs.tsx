import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { Link, useParams } from 'react-router';
import { api, formatBytes, formatSeconds, formatTime, jobTitle } from '../api.ts';
import { useReadOnly } from '../session.tsx';
import { Card, ErrorNote, JobBar, KeyValues, Loading, Page, StateBadge, Scroll } from '../ui.tsx';
import { useJobs } from './Dashboard.tsx';

export function Jobs() {
  const jobs = useJobs();
  return (
    <Page title="Jobs">
      <ErrorNote error={jobs.error} />
      {!jobs.data ? <Loading what="jobs" /> : null}
      {jobs.data?.jobs.length === 0 ? <p>No jobs yet.</p> : null}
      {jobs.data && jobs.data.jobs.length > 0 ? (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">Jobs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Target</th>
                <th scope="col">State</th>
                <th scope="col">Progress</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.jobs.map((j) => (
                <tr key={j.id}>
                  <td>
                    <Link to={`/jobs/${j.id}`}>{jobTitle(j.type)}</Link>
                  </td>
                  <td>{j.target}</td>
                  <td>
                    <StateBadge state={j.state} />
                  </td>
                  <td>
                    {j.state === 'running' ? (
                      <JobBar label={j.phase ?? 'running'} percent={j.percent} />
                    ) : j.percent !== null ? (
                      `${Math.round(j.percent)}%`
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>{formatTime(j.startedAt ?? j.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Page>
  );
}

export function JobDetail() {
  const { id = '' } = useParams();
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const job = useQuery({
    queryKey: ['job', id],
    queryFn: () => api.get('/jobs/{id}', { params: { id } }),
    refetchInterval: (q) =>
      q.state.data?.state === 'running' || q.state.data?.state === 'queued' ? 5000 : false,
  });
  const cancel = useMutation({
    mutationFn: () => api.delete('/jobs/{id}', { params: { id } }),
    onSuccess: (data) => qc.setQueryData(['job', id], data),
  });
  const j = job.data;
  const active = j?.state === 'running' || j?.state === 'queued';
  return (
    <Page title={j ? jobTitle(j.type) : 'Job'} actions={<Link to="/jobs">All jobs</Link>}>
      <ErrorNote error={job.error} />
      {!j && !job.error ? <Loading what="the job" /> : null}
      {j ? (
        <>
          <Card title="Progress" id="job-progress">
            <p>
              <StateBadge state={j.state} /> {j.target}
            </p>
            {active ? (
              <JobBar
                label={j.phase ?? 'waiting'}
                percent={j.percent}
                bytesDone={j.bytesDone}
                bytesTotal={j.bytesTotal}
                etaSeconds={j.etaSeconds}
              />
            ) : null}
            <KeyValues
              rows={[
                ['Phase', j.phase ?? '—'],
                ['Percent', j.percent === null ? '—' : `${Math.round(j.percent)}%`],
                [
                  'Bytes',
                  j.bytesTotal
                    ? `${formatBytes(j.bytesDone)} of ${formatBytes(j.bytesTotal)}`
                    : formatBytes(j.bytesDone),
                ],
                ['Time left', formatSeconds(j.etaSeconds)],
                ['Started', formatTime(j.startedAt)],
                ['Ended', formatTime(j.endedAt)],
                ['Started by', `${j.actor} (${j.trigger})`],
              ]}
            />
            {j.error ? (
              <p className="error" role="alert">
                {j.error.message}
              </p>
            ) : null}
            {active ? (
              <Button
                className="button danger"
                isDisabled={readOnly || !j.cancellable || cancel.isPending}
                onPress={() => cancel.mutate()}
              >
                Cancel job
              </Button>
            ) : null}
            {active && !j.cancellable ? (
              <p className="muted">This phase cannot be cancelled safely; wait for it to finish.</p>
            ) : null}
            <ErrorNote error={cancel.error} />
          </Card>
          {j.result !== null && j.result !== undefined ? (
            <Card title="Result" id="job-result">
              <Scroll label="Job result">
                <pre className="output">{JSON.stringify(j.result, null, 2)}</pre>
              </Scroll>
            </Card>
          ) : null}
          <Card title="Output" id="job-output">
            {j.output.length === 0 ? (
              <p className="muted">No output.</p>
            ) : (
              <Scroll label="Job output">
                <pre className="output">{j.output.join('\n')}</pre>
              </Scroll>
            )}
          </Card>
        </>
      ) : null}
    </Page>
  );
}
