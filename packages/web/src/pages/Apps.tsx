import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { Link, useNavigate, useParams } from 'react-router';
import { api, formatTime, jobTitle } from '../api.ts';
import { Check } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import {
  Card,
  ConfirmDialog,
  ErrorNote,
  JobBar,
  KeyValues,
  Loading,
  Page,
  Scroll,
  StateBadge,
} from '../ui.tsx';
import { StackLogs } from './StackLogs.tsx';

type Stack = Awaited<ReturnType<typeof api.get<'/stacks/{name}'>>>;

const STATUS_WORDS: Record<Stack['status'], string> = {
  running: 'running',
  partial: 'partly running',
  stopped: 'stopped',
  not_created: 'not started yet',
  restarting: 'restarting',
  unhealthy: 'unhealthy',
  unknown: 'unknown (Docker did not answer)',
};

export function Apps() {
  const stacks = useQuery({ queryKey: ['stacks'], queryFn: () => api.get('/stacks') });
  return (
    <Page title="Apps">
      <Card title="Installed apps" id="stacks">
        <ErrorNote error={stacks.error} />
        {!stacks.data ? <Loading what="the apps" /> : null}
        {stacks.data?.docker === 'unavailable' ? (
          <p className="error" role="alert">
            Docker does not answer: the states below are unknown. Check the Docker service on the appliance.
          </p>
        ) : null}
        {stacks.data && stacks.data.stacks.length === 0 ? <p>No apps installed.</p> : null}
        {stacks.data && stacks.data.stacks.length > 0 ? (
          <div className="table-wrap">
            <table className="table" data-testid="stacks">
              <caption className="sr-only">Installed apps</caption>
              <thead>
                <tr>
                  <th scope="col">App</th>
                  <th scope="col">State</th>
                  <th scope="col">From</th>
                  <th scope="col">Update</th>
                </tr>
              </thead>
              <tbody>
                {stacks.data.stacks.map((s) => (
                  <tr key={s.name}>
                    <th scope="row">
                      <Link to={`/apps/${encodeURIComponent(s.name)}`}>{s.name}</Link>
                    </th>
                    <td>
                      <StateBadge state={s.status} />
                    </td>
                    <td>
                      {s.template
                        ? `${s.template.source}/${s.template.id} r${s.template.revision}`
                        : 'by hand'}
                    </td>
                    <td>{s.updateAvailable ? 'available' : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>
    </Page>
  );
}

/** A job started from this page, followed live (GET /events patches and refetches ['job', id]). */
function JobCard({ id }: { id: string }) {
  const job = useQuery({
    queryKey: ['job', id],
    queryFn: () => api.get('/jobs/{id}', { params: { id } }),
    refetchInterval: (q) =>
      q.state.data?.state === 'running' || q.state.data?.state === 'queued' ? 5000 : false,
  });
  const j = job.data;
  if (!j) return <ErrorNote error={job.error} />;
  const active = j.state === 'running' || j.state === 'queued';
  return (
    <div data-testid="stack-job">
      <p>
        <Link to={`/jobs/${j.id}`}>{jobTitle(j.type)}</Link>: <StateBadge state={j.state} />
      </p>
      {active ? <JobBar label={j.phase ?? 'waiting'} percent={j.percent} /> : null}
      {j.error ? (
        <p className="error" role="alert">
          {j.error.message}
        </p>
      ) : null}
      {j.result !== null && j.result !== undefined && !active && /update|remove/.test(j.type) ? (
        <Scroll label="Result of the last operation">
          <pre className="output">{JSON.stringify(j.result, null, 2)}</pre>
        </Scroll>
      ) : null}
    </div>
  );
}

export function AppDetail() {
  const name = useParams()['name'] ?? '';
  return <AppDetailOf key={name} name={name} />;
}

function AppDetailOf({ name }: { name: string }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [jobId, setJobId] = useState<string | null>(null);
  const [snapshot, setSnapshot] = useState(false);
  const stack = useQuery({
    queryKey: ['stack', name],
    queryFn: () => api.get('/stacks/{name}', { params: { name } }),
    refetchInterval: 5000,
  });
  const act = useMutation({
    mutationFn: (what: 'start' | 'stop' | 'restart' | 'update') =>
      what === 'update'
        ? api.post('/stacks/{name}/update', { params: { name }, body: snapshot ? { snapshot: true } : {} })
        : what === 'start'
          ? api.post('/stacks/{name}/start', { params: { name } })
          : what === 'stop'
            ? api.post('/stacks/{name}/stop', { params: { name } })
            : api.post('/stacks/{name}/restart', { params: { name } }),
    onSuccess: (j) => {
      setJobId(j.id);
      void qc.invalidateQueries({ queryKey: ['jobs'] });
    },
  });
  const job = useQuery({
    queryKey: ['job', jobId ?? ''],
    queryFn: () => api.get('/jobs/{id}', { params: { id: jobId! } }),
    enabled: jobId !== null,
  });
  const busy = job.data?.state === 'running' || job.data?.state === 'queued';
  const remove = async (removeData: boolean, confirm: string) => {
    const j = await api.delete('/stacks/{name}', { params: { name }, body: { confirm, removeData } });
    setJobId(j.id);
  };
  const s = stack.data;
  const finished = job.data && !busy;
  const ended = finished ? job.data?.state : undefined;
  // a finished operation changed the stack: read it again (and the list, after a removal)
  useEffect(() => {
    if (!ended) return;
    void qc.invalidateQueries({ queryKey: ['stack', name] });
    void qc.invalidateQueries({ queryKey: ['stacks'] });
  }, [ended, qc, name]);
  return (
    <Page title={`App ${name}`} actions={<Link to="/apps">All apps</Link>}>
      <ErrorNote error={stack.error} />
      {!s && !stack.error ? <Loading what="the app" /> : null}
      {s ? (
        <div className="grid">
          <Card title="State" id="stack-state">
            <p data-testid="stack-status">
              <StateBadge state={s.status} /> <span className="sr-only">{STATUS_WORDS[s.status]}</span>
            </p>
            <KeyValues
              rows={[
                ['Folder', s.directory],
                ['Installed', formatTime(s.installedAt)],
                [
                  'From',
                  s.template
                    ? `${s.template.source}/${s.template.id} revision ${s.template.revision}`
                    : 'by hand',
                ],
                ['Edited by hand', s.manuallyEdited ? 'yes' : 'no'],
                ['Update', s.updateAvailable ? 'a newer image is available' : 'none known'],
              ]}
            />
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Services and their containers</caption>
                <thead>
                  <tr>
                    <th scope="col">Service</th>
                    <th scope="col">Container</th>
                    <th scope="col">Status</th>
                    <th scope="col">Ports</th>
                  </tr>
                </thead>
                <tbody>
                  {s.services.flatMap((svc) =>
                    svc.containers.length === 0
                      ? [
                          <tr key={svc.name}>
                            <th scope="row">{svc.name}</th>
                            <td colSpan={3}>no container</td>
                          </tr>,
                        ]
                      : svc.containers.map((c) => (
                          <tr key={c.id}>
                            <th scope="row">{svc.name}</th>
                            <td>{c.name}</td>
                            <td>
                              {c.status}
                              {c.health ? ` (${c.health})` : ''}
                            </td>
                            <td>
                              {c.ports
                                .map((p) => `${p.hostIp}:${p.published} → ${p.target}/${p.protocol}`)
                                .join(', ') || '—'}
                            </td>
                          </tr>
                        )),
                  )}
                </tbody>
              </table>
            </div>
          </Card>
          <Card title="Operations" id="stack-operations">
            <div className="actions">
              {(['start', 'stop', 'restart'] as const).map((what) => (
                <Button
                  key={what}
                  className="button"
                  isDisabled={readOnly || busy || act.isPending}
                  onPress={() => act.mutate(what)}
                >
                  {what[0]!.toUpperCase() + what.slice(1)}
                </Button>
              ))}
            </div>
            <Check value={snapshot} onChange={setSnapshot} isDisabled={readOnly}>
              Take a backup snapshot before updating
            </Check>
            <div className="actions">
              <Button
                className="button"
                isDisabled={readOnly || busy || act.isPending}
                onPress={() => act.mutate('update')}
              >
                Update
              </Button>
              <ConfirmDialog
                trigger="Remove…"
                title={`Remove ${name}`}
                phrase={`DELETE ${name}`}
                confirmLabel="Remove app"
                danger
                isDisabled={readOnly || busy}
                onConfirm={(typed) => remove(false, typed)}
              >
                <p>Stops the app and removes its folder. Its data folders stay.</p>
              </ConfirmDialog>
              <ConfirmDialog
                trigger="Remove with its data…"
                title={`Remove ${name} and its data`}
                phrase={`DELETE ${name} AND ITS DATA`}
                confirmLabel="Remove app and data"
                danger
                isDisabled={readOnly || busy}
                onConfirm={(typed) => remove(true, typed)}
              >
                <p>Also deletes its data folders below the app-data folder. This cannot be undone.</p>
              </ConfirmDialog>
            </div>
            <ErrorNote error={act.error} />
            {jobId ? <JobCard id={jobId} /> : null}
            {finished && job.data?.state === 'succeeded' && job.data.type.includes('remove') ? (
              <Button className="button" onPress={() => navigate('/apps')}>
                Back to the apps
              </Button>
            ) : null}
          </Card>
        </div>
      ) : null}
      {s ? <StackLogs key={s.status} name={name} /> : null}
    </Page>
  );
}
