import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
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
    <Page title="Apps" actions={<Link to="/apps/catalog">App catalog</Link>}>
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

type LogLine = Awaited<ReturnType<typeof api.get<'/stacks/{name}/logs'>>>['lines'][number];
const LOG_LINES = 200;

/**
 * The stack's logs followed live (`GET /stacks/{name}/logs?follow=1`, server-sent events): the
 * last 200 lines, then each new one. A reconnection starts again from the last 200, and so does a
 * change of the stack's state (a stream of a stack with no container ends at once).
 */
function Logs({ name, status }: { name: string; status: string }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [state, setState] = useState<'connecting' | 'live' | 'reconnecting' | 'ended'>('connecting');
  const [ended, setEnded] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a change of the stack's state reopens the stream on purpose
  useEffect(() => {
    const stream = api.stackLogs(
      name,
      { tail: LOG_LINES },
      {
        onOpen: () => {
          setState('live');
          setEnded(null);
          setLines([]);
        },
        onLine: (line) => setLines((old) => [...old.slice(-(LOG_LINES - 1)), line]),
        onEnd: (message) => {
          setState('ended');
          setEnded(message);
        },
        onError: () => setState('reconnecting'),
      },
    );
    return () => stream.close();
  }, [name, status]);
  return (
    <Card title="Logs" id="stack-logs">
      <p className="muted" data-testid="stack-log-state">
        {state === 'live'
          ? 'Following live: the last 200 lines of every service, then each new one.'
          : state === 'reconnecting'
            ? 'Reconnecting…'
            : state === 'ended'
              ? 'The log stream ended.'
              : 'Connecting…'}
      </p>
      {ended ? <p className="error">{ended}</p> : null}
      {lines.length === 0 ? (
        <p className="muted">No output yet.</p>
      ) : (
        <Scroll label={`Logs of ${name}`}>
          <pre className="output" data-testid="stack-log-lines">
            {lines.map((l) => `${l.service} | ${l.text}`).join('\n')}
          </pre>
        </Scroll>
      )}
    </Card>
  );
}

/**
 * Change one of the stack's inputs (`PUT /stacks/{name}/values`): the install rules and the compose
 * check run again; a running stack is restarted (the start job is followed like the others).
 */
function Values({ name, onRestart }: { name: string; onRestart: (jobId: string) => void }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [input, setInput] = useState('');
  const [value, setValue] = useState('');
  const save = useMutation({
    mutationFn: () =>
      api.put('/stacks/{name}/values', { params: { name }, body: { values: { [input]: value } } }),
    onSuccess: (r) => {
      if (r.restart) onRestart(r.restart.id);
      void qc.invalidateQueries({ queryKey: ['stack', name] });
    },
  });
  return (
    <Card title="Values" id="stack-values">
      <p className="muted">
        Change one of the app's inputs by its name (as in its template, e.g. WEBUI_PORT).
      </p>
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <TextField className="field" value={input} onChange={setInput} isDisabled={readOnly}>
          <Label>Input</Label>
          <Input autoComplete="off" spellCheck={false} />
        </TextField>
        <TextField className="field" value={value} onChange={setValue} isDisabled={readOnly}>
          <Label>New value</Label>
          <Input autoComplete="off" spellCheck={false} />
        </TextField>
        <ErrorNote error={save.error} />
        {save.data ? (
          <p role="status" data-testid="values-saved">
            {save.data.changed.length === 0
              ? 'Nothing changed.'
              : `Changed ${save.data.changed.join(', ')}${save.data.restart ? '; the app restarts to use it.' : '.'}`}
          </p>
        ) : null}
        <Button type="submit" className="button" isDisabled={readOnly || save.isPending || input === ''}>
          Save value
        </Button>
      </Form>
    </Card>
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
      {s?.template ? <Values name={name} onRestart={setJobId} /> : null}
      {s ? <Logs name={name} status={s.status} /> : null}
    </Page>
  );
}
