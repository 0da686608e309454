import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link } from 'react-router';
import { api, formatTime } from '../api.ts';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, KeyValues, Loading, Page, StateBadge } from '../ui.tsx';
import { JobLine } from './JobLine.tsx';

type Updates = Awaited<ReturnType<typeof api.get<'/updates'>>>;
type Pkg = Updates['pending'][number];

function Packages({ pending }: { pending: Pkg[] }) {
  if (pending.length === 0) return <p data-testid="updates-none">Every package is up to date.</p>;
  return (
    <div className="table-wrap">
      <table className="table" data-testid="updates-pending">
        <caption className="sr-only">Packages with an update</caption>
        <thead>
          <tr>
            <th scope="col">Package</th>
            <th scope="col">Installed</th>
            <th scope="col">New</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {pending.map((p) => (
            <tr key={p.name}>
              <td>
                {p.name} {p.security ? <StateBadge state="security" /> : null}
              </td>
              <td>{p.from}</td>
              <td>{p.to}</td>
              <td>{p.origin}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function UpdatesCard() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const updates = useQuery({ queryKey: ['updates'], queryFn: () => api.get('/updates') });
  const [jobId, setJobId] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: (what: 'check' | 'apply') =>
      what === 'check' ? api.post('/updates/check', { body: {} }) : api.post('/updates/apply', { body: {} }),
    onSuccess: (j) => setJobId(j.id),
  });
  const ended = useCallback(() => {
    void qc.invalidateQueries({ queryKey: ['updates'] });
    void qc.invalidateQueries({ queryKey: ['reboot'] });
  }, [qc]);
  const d = updates.data;
  const following = jobId ?? d?.running?.id ?? null;
  const busy = readOnly || start.isPending || (d?.running ?? null) !== null;
  return (
    <Card title="Package updates" id="updates">
      <ErrorNote error={updates.error} />
      {!d ? <Loading what="the updates" /> : null}
      {d ? (
        <>
          <KeyValues
            rows={[
              [
                'Last check',
                <span key="c" data-testid="updates-checked">
                  {formatTime(d.checkedAt)}
                </span>,
              ],
              ['Next check', formatTime(d.nextCheckAt)],
              [
                'Pending',
                <span key="p" data-testid="updates-count">
                  {d.pending.length} package(s), {d.security.length} security
                </span>,
              ],
              [
                'Last update',
                d.lastApply ? (
                  <span key="a">
                    <StateBadge state={d.lastApply.state} /> {formatTime(d.lastApply.endedAt)} (
                    <Link to={`/jobs/${d.lastApply.id}`}>job</Link>)
                  </span>
                ) : (
                  'never'
                ),
              ],
            ]}
          />
          {d.checkError ? (
            <p className="error" role="alert">
              {d.checkError}
            </p>
          ) : null}
          <Packages pending={d.pending} />
          <div className="actions">
            <Button className="button" isDisabled={busy} onPress={() => start.mutate('check')}>
              Check now
            </Button>
            <ConfirmDialog
              trigger="Apply updates…"
              title="Apply the updates"
              confirmLabel="Apply updates"
              isDisabled={busy || d.pending.length === 0}
              onConfirm={async () => {
                const j = await api.post('/updates/apply', { body: {} });
                setJobId(j.id);
              }}
            >
              <p>
                A configuration archive is written first, then {d.pending.length} package(s) are upgraded
                without questions. It waits for no array job: while a parity sync, a scrub or a disk job runs
                it is refused.
              </p>
            </ConfirmDialog>
          </div>
          <ErrorNote error={start.error} />
          {following ? <JobLine key={following} id={following} testId="updates-job" onEnd={ended} /> : null}
        </>
      ) : null}
    </Card>
  );
}

/** A `datetime-local` value (the browser's time zone) as RFC 3339 UTC; empty stays empty. */
const toIso = (local: string) => {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
};

function RebootCard() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const reboot = useQuery({ queryKey: ['reboot'], queryFn: () => api.get('/system/reboot') });
  const [at, setAt] = useState('');
  const schedule = useMutation({
    mutationFn: () => api.post('/system/reboot', { body: { at: toIso(at) } }),
    onSuccess: (data) => qc.setQueryData(['reboot'], data),
  });
  const cancel = useMutation({
    mutationFn: () => api.delete('/system/reboot'),
    onSuccess: (data) => qc.setQueryData(['reboot'], data),
  });
  const d = reboot.data;
  return (
    <Card title="Reboot" id="reboot">
      <ErrorNote error={reboot.error} />
      {!d ? <Loading what="the reboot state" /> : null}
      {d ? (
        <>
          <p data-testid="reboot-required">
            {d.required
              ? `A reboot is required${d.packages.length ? ` (for ${d.packages.join(', ')})` : ''}.`
              : 'No reboot is required.'}
          </p>
          <p data-testid="reboot-scheduled">
            {d.scheduledAt
              ? `A reboot is scheduled for ${formatTime(d.scheduledAt)} (by ${d.scheduledBy ?? 'the system'}); it waits for any array job to end.`
              : 'No reboot is scheduled.'}
          </p>
          <Form
            className="form"
            onSubmit={(e) => {
              e.preventDefault();
              if (at) schedule.mutate();
            }}
          >
            <TextField
              className="field"
              value={at}
              onChange={setAt}
              type="datetime-local"
              isDisabled={readOnly}
            >
              <Label>Reboot at (your local time, at most 30 days ahead)</Label>
              <Input />
            </TextField>
            <ErrorNote error={schedule.error} />
            <div className="actions">
              <Button
                type="submit"
                className="button primary"
                isDisabled={readOnly || !at || schedule.isPending}
              >
                Schedule reboot
              </Button>
            </div>
          </Form>
          {/* outside the form: a dialog's submit bubbles through React's tree to an enclosing form */}
          <ErrorNote error={cancel.error} />
          <div className="actions">
            <Button
              className="button"
              isDisabled={readOnly || !d.scheduledAt || cancel.isPending}
              onPress={() => cancel.mutate()}
            >
              Cancel the scheduled reboot
            </Button>
            <ConfirmDialog
              trigger="Reboot now…"
              title="Reboot now"
              phrase="REBOOT"
              confirmLabel="Reboot now"
              danger
              isDisabled={readOnly}
              onConfirm={async () => {
                qc.setQueryData(['reboot'], await api.post('/system/reboot', { body: {} }));
              }}
            >
              <p>
                The appliance restarts as soon as no array job runs: shares and apps are unavailable for a few
                minutes, and this page reconnects when it is back.
              </p>
            </ConfirmDialog>
          </div>
        </>
      ) : null}
    </Card>
  );
}

export function Updates() {
  return (
    <Page title="Updates and reboot">
      <div className="grid">
        <UpdatesCard />
        <RebootCard />
      </div>
    </Page>
  );
}
