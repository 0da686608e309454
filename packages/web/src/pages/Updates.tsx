import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link } from 'react-router';
import { api, formatTime } from '../api.ts';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, JobBar, KeyValues, Loading, Page, StateBadge } from '../ui.tsx';

const active = (state: string | undefined) => state === 'running' || state === 'queued';

function Packages() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const updates = useQuery({
    queryKey: ['updates'],
    queryFn: () => api.get('/updates'),
    refetchInterval: (q) => (q.state.data?.running ? 3_000 : false),
  });
  const [jobId, setJobId] = useState<string | null>(null);
  const started = (j: { id: string }) => {
    setJobId(j.id);
    void qc.invalidateQueries({ queryKey: ['updates'] });
  };
  const check = useMutation({
    mutationFn: () => api.post('/updates/check', { body: {} }),
    onSuccess: started,
  });
  const u = updates.data;
  const id = jobId ?? u?.running?.id ?? null;
  // progress arrives on GET /events (patched into this cache); the end re-reads the updates
  const job = useQuery({
    queryKey: ['job', id ?? ''],
    queryFn: () => api.get('/jobs/{id}', { params: { id: id! } }),
    enabled: id !== null,
  });
  const ended = job.data && !active(job.data.state) ? job.data.id : null;
  useEffect(() => {
    if (!ended) return;
    void qc.invalidateQueries({ queryKey: ['updates'] });
    void qc.invalidateQueries({ queryKey: ['reboot'] });
  }, [ended, qc]);
  const busy = active(job.data?.state) || Boolean(u?.running);
  return (
    <Card title="Debian packages" id="packages">
      <ErrorNote error={updates.error} />
      {!u ? <Loading what="the updates" /> : null}
      {u ? (
        <>
          <KeyValues
            rows={[
              ['Last check', formatTime(u.checkedAt)],
              ['Next check', formatTime(u.nextCheckAt)],
              ['Updates', `${u.pending.length} (${u.security.length} for security)`],
              [
                'Last update',
                u.lastApply ? `${u.lastApply.state}, ${formatTime(u.lastApply.endedAt)}` : 'never',
              ],
            ]}
          />
          {u.checkError ? <p className="error">{u.checkError}</p> : null}
          {u.pending.length > 0 ? (
            <div className="table-wrap">
              <table className="table" data-testid="pending">
                <caption className="sr-only">Packages to update</caption>
                <thead>
                  <tr>
                    <th scope="col">Package</th>
                    <th scope="col">Installed</th>
                    <th scope="col">New</th>
                    <th scope="col">From</th>
                  </tr>
                </thead>
                <tbody>
                  {u.pending.map((p) => (
                    <tr key={`${p.name}:${p.architecture}`}>
                      <th scope="row">
                        {p.name}
                        {p.security ? <span className="bad"> (security)</span> : null}
                      </th>
                      <td>{p.from}</td>
                      <td>{p.to}</td>
                      <td>{p.origin}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          {job.data ? (
            <div data-testid="updates-job">
              <p>
                <Link to={`/jobs/${job.data.id}`}>{job.data.type.replace(/[._]/g, ' ')}</Link>:{' '}
                <StateBadge state={job.data.state} />
              </p>
              {active(job.data.state) ? (
                <JobBar label={job.data.phase ?? 'waiting'} percent={job.data.percent} />
              ) : null}
              {job.data.error ? <p className="error">{job.data.error.message}</p> : null}
            </div>
          ) : null}
          <ErrorNote error={check.error} />
          <div className="actions">
            <Button
              className="button"
              isDisabled={readOnly || busy || check.isPending}
              onPress={() => check.mutate()}
            >
              Check now
            </Button>
            <ConfirmDialog
              trigger="Update now…"
              title="Install the updates?"
              confirmLabel="Update"
              isDisabled={readOnly || busy || u.pending.length === 0}
              onConfirm={async () => started(await api.post('/updates/apply', { body: {} }))}
            >
              <p>
                A configuration archive is made first, then apt upgrades the {u.pending.length} packages. It
                waits for no array job: it is refused while one runs.
              </p>
            </ConfirmDialog>
          </div>
        </>
      ) : null}
    </Card>
  );
}

/** A `datetime-local` value (the browser's time zone) as RFC 3339, or null. */
const toIso = (local: string): string | null => {
  const d = new Date(local);
  return local === '' || Number.isNaN(d.getTime()) ? null : d.toISOString();
};

function Reboot() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const reboot = useQuery({ queryKey: ['reboot'], queryFn: () => api.get('/system/reboot') });
  const [at, setAt] = useState('');
  const schedule = useMutation({
    mutationFn: () => {
      const iso = toIso(at);
      return api.post('/system/reboot', { body: iso ? { at: iso } : { at } });
    },
    onSuccess: (r) => qc.setQueryData(['reboot'], r),
  });
  const cancel = useMutation({
    mutationFn: () => api.delete('/system/reboot'),
    onSuccess: (r) => qc.setQueryData(['reboot'], r),
  });
  const r = reboot.data;
  return (
    <Card title="Reboot" id="reboot">
      <ErrorNote error={reboot.error} />
      {!r ? <Loading what="the reboot state" /> : null}
      {r ? (
        <>
          <p data-testid="reboot-required">
            {r.required
              ? `A reboot is required${r.packages.length > 0 ? ` (${r.packages.join(', ')})` : ''}.`
              : 'No reboot is required.'}
            {r.reason ? ` ${r.reason}` : ''}
          </p>
          <p data-testid="reboot-scheduled">
            {r.scheduledAt
              ? `Reboot scheduled for ${formatTime(r.scheduledAt)} by ${r.scheduledBy ?? 'the system'}; it waits for any array job to end.`
              : 'No reboot scheduled.'}
          </p>
          <Form
            className="form"
            onSubmit={(e) => {
              e.preventDefault();
              schedule.mutate();
            }}
          >
            <TextField
              className="field"
              value={at}
              onChange={setAt}
              type="datetime-local"
              isDisabled={readOnly}
            >
              <Label>Reboot at (this browser's time)</Label>
              <Input />
            </TextField>
            <ErrorNote error={schedule.error} />
            <Button type="submit" className="button" isDisabled={readOnly || schedule.isPending || at === ''}>
              Schedule the reboot
            </Button>
          </Form>
          <ErrorNote error={cancel.error} />
          <div className="actions">
            <Button
              className="button"
              isDisabled={readOnly || cancel.isPending || !r.scheduledAt}
              onPress={() => cancel.mutate()}
            >
              Cancel the scheduled reboot
            </Button>
            <ConfirmDialog
              trigger="Reboot now…"
              title="Reboot the appliance now?"
              confirmLabel="Reboot"
              danger
              isDisabled={readOnly}
              onConfirm={async () =>
                qc.setQueryData(['reboot'], await api.post('/system/reboot', { body: {} }))
              }
            >
              <p>
                Shares and apps are unreachable for a few minutes. A running array job is waited for first.
              </p>
            </ConfirmDialog>
          </div>
        </>
      ) : null}
    </Card>
  );
}

/** `/updates`: the Debian packages (check, update) and the reboot (required, scheduled, now). */
export function Updates() {
  return (
    <Page title="Updates">
      <div className="grid">
        <Packages />
        <Reboot />
      </div>
    </Page>
  );
}
