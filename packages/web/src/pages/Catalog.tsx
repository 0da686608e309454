import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link, useNavigate, useParams } from 'react-router';
import { api, formatTime } from '../api.ts';
import { Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, KeyValues, Loading, Page } from '../ui.tsx';

type Plan = Awaited<ReturnType<typeof api.post<'/templates/{id}/preview'>>>;
type PlanInput = Plan['inputs'][number];

const useCatalog = () => useQuery({ queryKey: ['catalog'], queryFn: () => api.get('/catalog') });

function Sources() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const catalog = useCatalog();
  const [id, setId] = useState('');
  const [kind, setKind] = useState<'directory' | 'https'>('https');
  const [url, setUrl] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const refresh = useMutation({
    mutationFn: (source: string) => api.post('/catalog/sources/{id}/refresh', { params: { id: source } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['catalog'] }),
  });
  const add = useMutation({
    mutationFn: () =>
      api.post('/catalog/sources', {
        body: kind === 'https' ? { id, kind, url, publicKey } : { id, kind },
      }),
    onSuccess: () => {
      setId('');
      setUrl('');
      setPublicKey('');
      void qc.invalidateQueries({ queryKey: ['catalog'] });
    },
  });
  return (
    <Card title="Sources" id="sources">
      <ErrorNote error={catalog.error} />
      {catalog.data ? (
        <div className="table-wrap">
          <table className="table" data-testid="sources">
            <caption className="sr-only">Catalog sources</caption>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Kind</th>
                <th scope="col">Templates</th>
                <th scope="col">Refreshed (signature)</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {catalog.data.sources.map((s) => (
                <tr key={s.id}>
                  <th scope="row">{s.id}</th>
                  <td>{s.kind}</td>
                  <td>{s.templateCount}</td>
                  <td>
                    {s.error ? (
                      <span className="bad">{s.error}</span>
                    ) : s.kind === 'https' ? (
                      `${formatTime(s.lastRefreshedAt)}${s.serial !== null ? `, serial ${s.serial}, signature verified` : ''}`
                    ) : (
                      `${formatTime(s.lastRefreshedAt)} (a local folder: no signature)`
                    )}
                  </td>
                  <td className="actions">
                    {s.kind === 'https' ? (
                      <Button
                        className="button small"
                        isDisabled={readOnly || refresh.isPending}
                        onPress={() => refresh.mutate(s.id)}
                        aria-label={`Refresh ${s.id}`}
                      >
                        Refresh
                      </Button>
                    ) : null}
                    {s.id === 'builtin' ? null : (
                      <ConfirmDialog
                        trigger={`Remove ${s.id}…`}
                        title={`Remove the catalog source ${s.id}`}
                        confirmLabel="Remove source"
                        danger
                        isDisabled={readOnly}
                        onConfirm={async () => {
                          await api.delete('/catalog/sources/{id}', { params: { id: s.id } });
                          void qc.invalidateQueries({ queryKey: ['catalog'] });
                        }}
                      >
                        <p>
                          Its templates leave the catalog. Apps installed from it stay, with their folders and
                          data.
                          {s.kind === 'https'
                            ? ' Its downloaded copy is deleted.'
                            : ' Its folder stays on disk.'}
                        </p>
                      </ConfirmDialog>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Loading what="the sources" />
      )}
      <ErrorNote error={refresh.error} />
      <h3>Add a source</h3>
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <TextField className="field" value={id} onChange={setId} isDisabled={readOnly}>
          <Label>Source id</Label>
          <Input />
        </TextField>
        <Choice
          label="Kind"
          value={kind}
          options={[
            ['https', 'signed catalog over HTTPS'],
            ['directory', 'folder on the appliance'],
          ]}
          onChange={setKind}
          isDisabled={readOnly}
        />
        {kind === 'https' ? (
          <>
            <TextField className="field" value={url} onChange={setUrl} isDisabled={readOnly}>
              <Label>Catalog URL</Label>
              <Input />
            </TextField>
            <TextField className="field" value={publicKey} onChange={setPublicKey} isDisabled={readOnly}>
              <Label>Its Ed25519 public key (base64)</Label>
              <Input />
            </TextField>
          </>
        ) : null}
        <ErrorNote error={add.error} />
        <Button type="submit" className="button" isDisabled={readOnly || add.isPending || id === ''}>
          Add source
        </Button>
      </Form>
    </Card>
  );
}

/** `/apps/catalog`: the templates of every source, each with its install page; the sources. */
export function Catalog() {
  const catalog = useCatalog();
  return (
    <Page title="App catalog" actions={<Link to="/apps">Installed apps</Link>}>
      <Card title="Templates" id="templates">
        <ErrorNote error={catalog.error} />
        {catalog.data ? (
          catalog.data.templates.length === 0 ? (
            <p>No templates: add a source or refresh one.</p>
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="templates">
                <caption className="sr-only">Templates</caption>
                <thead>
                  <tr>
                    <th scope="col">App</th>
                    <th scope="col">Source</th>
                    <th scope="col">Categories</th>
                    <th scope="col">Installed as</th>
                  </tr>
                </thead>
                <tbody>
                  {catalog.data.templates.map((t) => (
                    <tr key={`${t.source}/${t.id}`}>
                      <th scope="row">
                        {t.problems.length > 0 ? (
                          <span title={t.problems.map((p) => p.message).join('; ')}>
                            {t.title} (unusable)
                          </span>
                        ) : (
                          <Link to={`/apps/install/${t.id}`} aria-label={`Install ${t.title}`}>
                            {t.title}
                          </Link>
                        )}
                      </th>
                      <td>
                        {t.source}
                        {t.revision !== null ? ` r${t.revision}` : ''}
                      </td>
                      <td>{t.categories.join(', ')}</td>
                      <td>{t.stacks.length > 0 ? t.stacks.join(', ') : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        ) : (
          <Loading what="the catalog" />
        )}
      </Card>
      <Sources />
    </Page>
  );
}

/** An input's value as the plan shows it: secrets never (generated ones are made at install). */
function shownValue(i: PlanInput): string {
  if (i.kind === 'secret') return i.generated ? 'generated at install (hidden)' : 'given (hidden)';
  if (i.requestedValue !== undefined)
    return `${i.value ?? ''} (you asked ${i.requestedValue}: taken, the next free one)`;
  return i.value ?? '';
}

function PlanView({ plan }: { plan: Plan }) {
  return (
    <div data-testid="install-plan">
      <KeyValues
        rows={[
          ['App', `${plan.title} (${plan.template.source}/${plan.template.id} r${plan.template.revision})`],
          ['Installed as', plan.name],
          ['Services', plan.services.join(', ')],
        ]}
      />
      <h3>Values</h3>
      <table className="table" data-testid="plan-inputs">
        <caption className="sr-only">Values</caption>
        <tbody>
          {plan.inputs.map((i) => (
            <tr key={i.name}>
              <th scope="row">{i.label ?? i.name}</th>
              <td className={i.requestedValue !== undefined ? 'bad' : undefined}>{shownValue(i)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>What it may do on this box</h3>
      {plan.privileges.length === 0 ? (
        <p data-testid="privileges">Nothing beyond an ordinary container.</p>
      ) : (
        <ul data-testid="privileges">
          {plan.privileges.map((p) => (
            <li key={`${p.service}-${p.kind}-${p.detail ?? ''}`}>
              <strong>{p.service}</strong>: {p.description}
              {p.detail ? ` (${p.detail})` : ''}
            </li>
          ))}
        </ul>
      )}
      {plan.warnings.length > 0 ? (
        <>
          <h3>Warnings</h3>
          <ul className="warnings">
            {plan.warnings.map((w) => (
              <li key={w.message} className="bad">
                {w.message}
                {w.command ? (
                  <>
                    {' '}
                    <code>{w.command}</code>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

/**
 * `/apps/install/:id`: the template's inputs (defaults from a first preview), a preview of the
 * install (values with moved ports and hidden secrets, the privilege summary, warnings), then the
 * install of exactly that plan (its digest).
 */
export function InstallTemplate() {
  const { id = '' } = useParams();
  const readOnly = useReadOnly();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [name, setName] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [plan, setPlan] = useState<Plan | null>(null);
  const first = useQuery({
    queryKey: ['template-preview', id],
    queryFn: () => api.post('/templates/{id}/preview', { params: { id }, body: {} }),
    enabled: !readOnly,
    retry: false,
  });
  const body = () => ({
    ...(name !== null && name !== '' ? { name } : {}),
    values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')),
  });
  const preview = useMutation({
    mutationFn: () => api.post('/templates/{id}/preview', { params: { id }, body: body() }),
    onSuccess: setPlan,
    onError: () => setPlan(null),
  });
  const install = useMutation({
    mutationFn: () =>
      api.post('/templates/{id}/install', {
        params: { id },
        body: { ...body(), planDigest: plan!.planDigest },
      }),
    onSuccess: (r) => {
      void qc.invalidateQueries({ queryKey: ['stacks'] });
      void qc.invalidateQueries({ queryKey: ['catalog'] });
      navigate(`/apps/${r.stack.name}`);
    },
  });
  const base = first.data;
  const set = (k: string, v: string) => {
    setPlan(null);
    setValues((o) => ({ ...o, [k]: v }));
  };
  return (
    <Page
      title={`Install ${base?.title ?? id}`}
      actions={<Link to="/apps/catalog">Back to the catalog</Link>}
    >
      {readOnly ? <p>A viewer cannot install apps.</p> : null}
      <ErrorNote error={first.error} />
      {base ? (
        <Card title="1. Values" id="values">
          <Form
            className="form"
            onSubmit={(e) => {
              e.preventDefault();
              preview.mutate();
            }}
          >
            <TextField
              className="field"
              value={name ?? base.name}
              onChange={(v) => {
                setPlan(null);
                setName(v);
              }}
            >
              <Label>App name</Label>
              <Input />
            </TextField>
            {base.inputs.map((i) => (
              <TextField
                key={i.name}
                className="field"
                value={values[i.name] ?? (i.kind === 'secret' ? '' : (i.requestedValue ?? i.value ?? ''))}
                onChange={(v) => set(i.name, v)}
                type={i.kind === 'secret' ? 'password' : 'text'}
              >
                <Label>
                  {i.label ?? i.name}
                  {i.kind === 'secret' ? ' (leave empty to generate one)' : ''}
                </Label>
                <Input autoComplete="off" />
                {i.description ? <p className="muted">{i.description}</p> : null}
              </TextField>
            ))}
            <ErrorNote error={preview.error} />
            <Button type="submit" className="button" isDisabled={preview.isPending}>
              Preview the install
            </Button>
          </Form>
        </Card>
      ) : !first.error && !readOnly ? (
        <Loading what="the template" />
      ) : null}
      {plan ? (
        <Card title="2. Review and install" id="review">
          <PlanView plan={plan} />
          <ErrorNote error={install.error} />
          <Button className="button primary" isDisabled={install.isPending} onPress={() => install.mutate()}>
            Install {plan.name}
          </Button>
          <p className="muted">Nothing is started: start the app from its page.</p>
        </Card>
      ) : null}
    </Page>
  );
}
