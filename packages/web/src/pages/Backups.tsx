import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';
import { ApiError, api, formatBytes, formatTime, saveFile } from '../api.ts';
import { handArchive } from '../archive-handoff.ts';
import { JobLine } from './JobLine.tsx';
import { Check, Choice, toggled } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, Loading, Page, StateBadge } from '../ui.tsx';

type Plan = Awaited<ReturnType<typeof api.get<'/backups/plans'>>>['plans'][number];
type Snapshot = Awaited<ReturnType<typeof api.get<'/backups/snapshots'>>>['snapshots'][number];

const partText = (p: Snapshot['part']) =>
  !p ? 'unknown' : p.kind === 'config' ? 'configuration' : `${p.kind} ${p.name}`;

/**
 * A plan's settings edited (`GET /backups/plans/{name}`, then `PUT` of the whole spec: what is not
 * shown here — destination, apps — is sent back as it was). Its password and snapshots stay.
 */
function EditPlan({ name, onDone }: { name: string; onDone: () => void }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const plan = useQuery({
    queryKey: ['backup-plan', name],
    queryFn: () => api.get('/backups/plans/{name}', { params: { name } }),
  });
  const shares = useQuery({ queryKey: ['shares'], queryFn: () => api.get('/shares') });
  const [edit, setEdit] = useState<{
    enabled: boolean;
    configuration: boolean;
    shares: Set<string>;
    time: string;
    daily: string;
    weekly: string;
    monthly: string;
    drill: boolean;
  } | null>(null);
  const p = plan.data;
  const e =
    edit ??
    (p
      ? {
          enabled: p.enabled,
          configuration: p.configuration,
          shares: new Set(p.shares),
          time: p.schedule.time,
          daily: String(p.retention.daily),
          weekly: String(p.retention.weekly),
          monthly: String(p.retention.monthly),
          drill: p.drill.enabled,
        }
      : null);
  const set = (patch: Partial<NonNullable<typeof e>>) => setEdit({ ...e!, ...patch });
  const save = useMutation({
    mutationFn: () =>
      api.put('/backups/plans/{name}', {
        params: { name },
        body: {
          enabled: e!.enabled,
          destination: p!.destination,
          configuration: e!.configuration,
          stacks: p!.stacks,
          shares: [...e!.shares],
          schedule: { ...p!.schedule, time: e!.time },
          retention: { daily: Number(e!.daily), weekly: Number(e!.weekly), monthly: Number(e!.monthly) },
          drill: { ...p!.drill, enabled: e!.drill },
        },
      }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['backup-plans'] });
      void qc.invalidateQueries({ queryKey: ['backup-plan', name] });
      onDone();
    },
  });
  if (!e) return <ErrorNote error={plan.error} />;
  return (
    <Form
      className="form"
      aria-label={`Edit ${name}`}
      onSubmit={(ev) => {
        ev.preventDefault();
        save.mutate();
      }}
    >
      <Check value={e.enabled} onChange={(v) => set({ enabled: v })} isDisabled={readOnly}>
        Run on its schedule
      </Check>
      <Check value={e.configuration} onChange={(v) => set({ configuration: v })} isDisabled={readOnly}>
        The appliance's configuration
      </Check>
      <fieldset>
        <legend>Shares</legend>
        {(shares.data?.shares ?? []).map((s) => (
          <Check
            key={s.name}
            value={e.shares.has(s.name)}
            onChange={(on) => set({ shares: toggled(e.shares, s.name, on) })}
            isDisabled={readOnly}
          >
            {`Share ${s.name}`}
          </Check>
        ))}
      </fieldset>
      <TextField className="field" value={e.time} onChange={(v) => set({ time: v })} isDisabled={readOnly}>
        <Label>Time (HH:MM)</Label>
        <Input />
      </TextField>
      <fieldset>
        <legend>Keep snapshots</legend>
        {(['daily', 'weekly', 'monthly'] as const).map((k) => (
          <TextField
            key={k}
            className="field"
            value={e[k]}
            onChange={(v) => set({ [k]: v })}
            inputMode="numeric"
            isDisabled={readOnly}
          >
            <Label>{`Keep ${k}`}</Label>
            <Input />
          </TextField>
        ))}
      </fieldset>
      <Check value={e.drill} onChange={(v) => set({ drill: v })} isDisabled={readOnly}>
        Scheduled restore drills
      </Check>
      <ErrorNote error={save.error} />
      <div className="actions">
        <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
          Save plan
        </Button>
        <Button className="button" onPress={onDone}>
          Close
        </Button>
      </div>
    </Form>
  );
}

function NewPlan() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const external = useQuery({ queryKey: ['external-disks'], queryFn: () => api.get('/disks/external') });
  const shares = useQuery({ queryKey: ['shares'], queryFn: () => api.get('/shares') });
  const destinations = (external.data?.disks ?? []).filter((d) => d.registered && d.backupDestination);
  const [name, setName] = useState('');
  const [destination, setDestination] = useState('');
  const [configuration, setConfiguration] = useState(true);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [time, setTime] = useState('03:30');
  const create = useMutation({
    mutationFn: () =>
      api.post('/backups/plans', {
        body: {
          name,
          destination: destination || destinations[0]?.label || '',
          configuration,
          shares: [...chosen],
          schedule: { kind: 'daily', time },
        },
      }),
    onSuccess: () => {
      setName('');
      void qc.invalidateQueries({ queryKey: ['backup-plans'] });
    },
  });
  if (external.data && destinations.length === 0)
    return (
      <p>
        No backup destination yet: register an external disk as one on the{' '}
        <Link to="/external-disks">external disks page</Link>.
      </p>
    );
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <TextField className="field" value={name} onChange={setName} isDisabled={readOnly}>
        <Label>Plan name</Label>
        <Input autoComplete="off" spellCheck={false} />
      </TextField>
      {destinations.length > 0 ? (
        <Choice
          label="Destination"
          value={destination || destinations[0]!.label}
          options={destinations.map((d) => [d.label, `${d.label} (${d.device ?? 'not attached'})`] as const)}
          onChange={setDestination}
          isDisabled={readOnly}
        />
      ) : null}
      <Check value={configuration} onChange={setConfiguration} isDisabled={readOnly}>
        The appliance's configuration
      </Check>
      <fieldset>
        <legend>Shares</legend>
        {(shares.data?.shares ?? []).map((s) => (
          <Check
            key={s.name}
            value={chosen.has(s.name)}
            onChange={(on) => setChosen((c) => toggled(c, s.name, on))}
            isDisabled={readOnly}
          >
            {`Share ${s.name}`}
          </Check>
        ))}
      </fieldset>
      <TextField className="field" value={time} onChange={setTime} isDisabled={readOnly}>
        <Label>Every day at (HH:MM)</Label>
        <Input />
      </TextField>
      <ErrorNote error={create.error} />
      <Button type="submit" className="button primary" isDisabled={readOnly || !name || create.isPending}>
        Create plan
      </Button>
    </Form>
  );
}

function Restore({
  plan,
  snap,
  onStarted,
}: {
  plan: string;
  snap: Snapshot;
  onStarted: (id: string) => void;
}) {
  const readOnly = useReadOnly();
  const [paths, setPaths] = useState('');
  const [folder, setFolder] = useState('');
  const [expected, setExpected] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const part = snap.part;
  const restore = useMutation({
    mutationFn: (confirmation: string | null) =>
      api.post('/backups/restore', {
        body: {
          plan,
          snapshot: snap.shortId,
          ...(part?.kind === 'share' ? { share: part.name } : {}),
          ...(part?.kind === 'stack' ? { stack: part.name } : {}),
          paths: paths
            .split('\n')
            .map((p) => p.trim())
            .filter(Boolean),
          ...(folder ? { folder } : {}),
          ...(confirmation ? { confirmation } : {}),
        },
      }),
    onSuccess: (j) => {
      setExpected(null);
      setTyped('');
      onStarted(j.id);
    },
    onError: (err) => {
      // into place: the API names the phrase to type
      if (
        err instanceof ApiError &&
        err.code === 'confirmation_required' &&
        typeof err.details?.['expected'] === 'string'
      )
        setExpected(err.details['expected']);
    },
  });
  const needsPhrase = restore.error instanceof ApiError && restore.error.code === 'confirmation_required';
  return (
    <Form
      className="form"
      aria-label={`Restore from ${snap.shortId}`}
      onSubmit={(e) => {
        e.preventDefault();
        restore.mutate(expected ? typed : null);
      }}
    >
      <h3>Restore from {snap.shortId}</h3>
      <TextField className="field" value={paths} onChange={setPaths} isDisabled={readOnly}>
        <Label>Paths to restore, one per line (empty: the whole snapshot)</Label>
        <Input autoComplete="off" spellCheck={false} />
      </TextField>
      <TextField className="field" value={folder} onChange={setFolder} isDisabled={readOnly}>
        <Label>Into a new folder (empty: into place, what is there is moved aside)</Label>
        <Input autoComplete="off" spellCheck={false} />
      </TextField>
      {expected ? (
        <TextField className="field" value={typed} onChange={setTyped} autoFocus>
          <Label>
            Type <code className="phrase">{expected}</code> to restore into place
          </Label>
          <Input autoComplete="off" spellCheck={false} />
        </TextField>
      ) : null}
      {!needsPhrase || !expected ? <ErrorNote error={restore.error} /> : null}
      <Button
        type="submit"
        className="button primary"
        isDisabled={readOnly || restore.isPending || (expected !== null && typed !== expected)}
      >
        Restore
      </Button>
    </Form>
  );
}

/**
 * A configuration snapshot's archive (`GET /backups/snapshots/:id/configuration`): downloaded, or
 * handed to the configuration import (its preview, then the typed `RESTORE <hostname>`).
 */
function ConfigArchive({ plan, snap }: { plan: string; snap: Snapshot }) {
  const readOnly = useReadOnly();
  const navigate = useNavigate();
  const [saved, setSaved] = useState<string | null>(null);
  const fetchArchive = useMutation({
    mutationFn: async (then: 'download' | 'import') => {
      const r = await api.getFile('/backups/snapshots/{id}/configuration', {
        params: { id: snap.id },
        query: { plan },
      });
      return { ...r, then };
    },
    onSuccess: ({ blob, filename, then }) => {
      const name = filename ?? `appliance-config-${plan}-${snap.shortId}.tar.zst`;
      if (then === 'import') {
        handArchive(new File([blob], name, { type: 'application/zstd' }));
        void navigate('/configuration');
        return;
      }
      saveFile(blob, name);
      setSaved(name);
    },
  });
  return (
    <div data-testid="config-archive">
      <h3>The configuration in {snap.shortId}</h3>
      <p>
        Download its archive, or restore it through the configuration import: its preview first, then the
        typed phrase.
      </p>
      <ErrorNote error={fetchArchive.error} />
      {saved ? <p role="status">Downloaded {saved}.</p> : null}
      <div className="actions">
        <Button
          className="button"
          onPress={() => fetchArchive.mutate('download')}
          isDisabled={readOnly || fetchArchive.isPending}
        >
          Download its archive
        </Button>
        <Button
          className="button primary"
          onPress={() => fetchArchive.mutate('import')}
          isDisabled={readOnly || fetchArchive.isPending}
        >
          Restore it through the import…
        </Button>
      </div>
    </div>
  );
}

function Snapshots({ plan }: { plan: string }) {
  const snaps = useQuery({
    queryKey: ['snapshots', plan],
    queryFn: () => api.get('/backups/snapshots', { query: { plan } }),
  });
  const [chosen, setChosen] = useState<Snapshot | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  return (
    <Card title={`Snapshots of ${plan}`} id="snapshots">
      <ErrorNote error={snaps.error} />
      {!snaps.data && !snaps.error ? <Loading what="the snapshots" /> : null}
      {snaps.data && snaps.data.snapshots.length === 0 ? <p>No snapshots yet.</p> : null}
      {snaps.data && snaps.data.snapshots.length > 0 ? (
        <div className="table-wrap">
          <table className="table" data-testid="snapshots">
            <caption className="sr-only">Snapshots, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Snapshot</th>
                <th scope="col">Taken</th>
                <th scope="col">Holds</th>
                <th scope="col">Files</th>
                <th scope="col">Size</th>
                <th scope="col">Restore</th>
              </tr>
            </thead>
            <tbody>
              {snaps.data.snapshots.map((x) => (
                <tr key={x.id}>
                  <th scope="row">{x.shortId}</th>
                  <td>{formatTime(x.time)}</td>
                  <td>{partText(x.part)}</td>
                  <td>{x.files ?? '—'}</td>
                  <td>{formatBytes(x.sizeBytes)}</td>
                  <td>
                    <Button
                      className="button small"
                      onPress={() => setChosen(x)}
                      aria-label={`Choose ${x.shortId} (${partText(x.part)}) to restore`}
                    >
                      Choose
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {chosen?.part?.kind === 'config' ? (
        <ConfigArchive key={`c${chosen.id}`} plan={plan} snap={chosen} />
      ) : null}
      {chosen ? <Restore key={chosen.id} plan={plan} snap={chosen} onStarted={setJobId} /> : null}
      {jobId ? <JobLine id={jobId} testId="backup-job" /> : null}
    </Card>
  );
}

export function Backups() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const plans = useQuery({ queryKey: ['backup-plans'], queryFn: () => api.get('/backups/plans') });
  const [jobs, setJobs] = useState<Record<string, string>>({});
  const [shown, setShown] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: ({ name, drill }: { name: string; drill: boolean }) =>
      drill
        ? api.post('/backups/plans/{name}/drill', { params: { name } })
        : api.post('/backups/plans/{name}/run', { params: { name } }),
    onSuccess: (j, { name }) => {
      setJobs((o) => ({ ...o, [name]: j.id }));
      void qc.invalidateQueries({ queryKey: ['jobs'] });
    },
  });
  return (
    <Page title="Backups">
      <div className="grid">
        <Card title="Plans" id="plans">
          <ErrorNote error={plans.error ?? start.error} />
          {!plans.data ? <Loading what="the plans" /> : null}
          {plans.data && plans.data.plans.length === 0 ? <p>No backup plans.</p> : null}
          {(plans.data?.plans ?? []).map((p: Plan) => (
            <section
              key={p.name}
              className="plan"
              aria-label={`Plan ${p.name}`}
              data-testid={`plan-${p.name}`}
            >
              <h3>
                {p.name} {p.status.stale ? <StateBadge state="warning" /> : null}
                {p.status.stale ? <span> stale: no recent successful run</span> : null}
              </h3>
              <p>
                To {p.destination}:{' '}
                {[
                  p.configuration ? 'configuration' : null,
                  ...p.shares.map((s) => `share ${s}`),
                  ...p.stacks.map((s) => `app ${s.name}`),
                ]
                  .filter(Boolean)
                  .join(', ') || 'nothing'}
                .{' '}
                {p.schedule.kind === 'daily'
                  ? `Daily at ${p.schedule.time}`
                  : `Weekly, ${p.schedule.weekday} at ${p.schedule.time}`}
                .
              </p>
              <p className="muted">
                Last run:{' '}
                {p.status.lastRun ? `${p.status.lastRun.state}, ${formatTime(p.status.lastRun.at)}` : 'never'}{' '}
                · last drill:{' '}
                {p.status.lastDrill
                  ? `${p.status.lastDrill.state}, ${formatTime(p.status.lastDrill.at)}`
                  : 'never'}{' '}
                · next run: {formatTime(p.status.nextRunAt)}
              </p>
              <div className="actions">
                <Button
                  className="button"
                  isDisabled={readOnly || start.isPending}
                  onPress={() => start.mutate({ name: p.name, drill: false })}
                  aria-label={`Run now: ${p.name}`}
                >
                  Run now
                </Button>
                <Button
                  className="button"
                  isDisabled={readOnly || start.isPending}
                  onPress={() => start.mutate({ name: p.name, drill: true })}
                  aria-label={`Restore drill: ${p.name}`}
                >
                  Restore drill
                </Button>
                <Button
                  className="button"
                  isDisabled={readOnly}
                  onPress={() => setEditing(p.name)}
                  aria-label={`Edit ${p.name}`}
                >
                  Edit
                </Button>
                <Button
                  className="button"
                  onPress={() => setShown(p.name)}
                  aria-label={`Snapshots of ${p.name}`}
                >
                  Snapshots
                </Button>
                <ConfirmDialog
                  trigger={`Delete ${p.name}…`}
                  title={`Delete the plan ${p.name}`}
                  phrase={`DELETE ${p.name}`}
                  confirmLabel="Delete plan"
                  danger
                  isDisabled={readOnly}
                  onConfirm={async (typed) => {
                    await api.delete('/backups/plans/{name}', {
                      params: { name: p.name },
                      body: { confirmation: typed },
                    });
                    void qc.invalidateQueries({ queryKey: ['backup-plans'] });
                  }}
                >
                  <p>The plan stops; its snapshots stay on {p.destination}.</p>
                </ConfirmDialog>
              </div>
              {editing === p.name ? <EditPlan name={p.name} onDone={() => setEditing(null)} /> : null}
              {jobs[p.name] ? <JobLine id={jobs[p.name]!} testId="backup-job" /> : null}
            </section>
          ))}
        </Card>
        <Card title="New plan" id="new-plan">
          <NewPlan />
        </Card>
      </div>
      {shown ? <Snapshots key={shown} plan={shown} /> : null}
    </Page>
  );
}
