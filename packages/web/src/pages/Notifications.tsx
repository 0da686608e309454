import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { api, formatTime } from '../api.ts';
import { Check, Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, Loading, Page, StateBadge } from '../ui.tsx';

type Severity = 'info' | 'warning' | 'error' | 'critical';
type Routing = Awaited<ReturnType<typeof api.get<'/notifications/routing'>>>['routing'][number];
/** A channel as the administrator reads it (a viewer gets only the common fields). */
type Channel = Awaited<ReturnType<typeof api.get<'/notifications/channels'>>>['channels'][number] & {
  webhookUrl?: string;
  webhookMethod?: 'POST' | 'PUT';
  emailHost?: string;
  emailPort?: number;
  emailUsername?: string;
  emailFrom?: string;
  emailTo?: string[];
  emailStartTls?: boolean;
};

const SEVERITIES: ReadonlyArray<readonly [Severity, string]> = [
  ['info', 'info'],
  ['warning', 'warning'],
  ['error', 'error'],
  ['critical', 'critical'],
];

const useChannels = () =>
  useQuery({ queryKey: ['channels'], queryFn: () => api.get('/notifications/channels') });

interface Draft {
  id: string | null;
  name: string;
  type: 'webhook' | 'email';
  enabled: boolean;
  webhookUrl: string;
  webhookMethod: 'POST' | 'PUT';
  emailHost: string;
  emailPort: string;
  emailUsername: string;
  emailFrom: string;
  emailTo: string;
  emailStartTls: boolean;
  secret: string;
}

const EMPTY: Draft = {
  id: null,
  name: '',
  type: 'webhook',
  enabled: true,
  webhookUrl: '',
  webhookMethod: 'POST',
  emailHost: '',
  emailPort: '587',
  emailUsername: '',
  emailFrom: '',
  emailTo: '',
  emailStartTls: true,
  secret: '',
};

const draftOf = (c: Channel): Draft => ({
  ...EMPTY,
  id: c.id,
  name: c.name,
  type: c.type === 'email' ? 'email' : 'webhook',
  enabled: c.enabled,
  webhookUrl: c.webhookUrl ?? '',
  webhookMethod: c.webhookMethod ?? 'POST',
  emailHost: c.emailHost ?? '',
  emailPort: String(c.emailPort ?? 587),
  emailUsername: c.emailUsername ?? '',
  emailFrom: c.emailFrom ?? '',
  emailTo: (c.emailTo ?? []).join(', '),
  emailStartTls: c.emailStartTls ?? true,
});

/** The request body of a draft; the secret is sent only when typed (omitted = keep it). */
function bodyOf(d: Draft) {
  const common = { name: d.name, enabled: d.enabled, ...(d.secret ? { secret: d.secret } : {}) };
  if (d.type === 'webhook')
    return { ...common, type: 'webhook' as const, webhookUrl: d.webhookUrl, webhookMethod: d.webhookMethod };
  return {
    ...common,
    type: 'email' as const,
    emailHost: d.emailHost,
    emailPort: Number(d.emailPort),
    emailFrom: d.emailFrom,
    emailTo: d.emailTo
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    emailStartTls: d.emailStartTls,
    ...(d.emailUsername ? { emailUsername: d.emailUsername } : {}),
  };
}

function ChannelForm({ draft, setDraft }: { draft: Draft; setDraft: (d: Draft) => void }) {
  const qc = useQueryClient();
  const readOnly = useReadOnly();
  const save = useMutation({
    mutationFn: () =>
      draft.id
        ? api.put('/notifications/channels/{id}', { params: { id: draft.id }, body: bodyOf(draft) })
        : api.post('/notifications/channels', { body: bodyOf(draft) }),
    onSuccess: () => {
      setDraft(EMPTY);
      void qc.invalidateQueries({ queryKey: ['channels'] });
    },
  });
  const field = (k: keyof Draft, label: string, type = 'text') => (
    <TextField
      className="field"
      value={String(draft[k])}
      onChange={(v) => setDraft({ ...draft, [k]: v })}
      isDisabled={readOnly}
      type={type}
    >
      <Label>{label}</Label>
      <Input autoComplete="off" />
    </TextField>
  );
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h3>{draft.id ? `Edit ${draft.name}` : 'New channel'}</h3>
      {field('name', 'Channel name')}
      {draft.id ? null : (
        <Choice
          label="Channel type"
          value={draft.type}
          options={[
            ['webhook', 'webhook'],
            ['email', 'email'],
          ]}
          onChange={(type) => setDraft({ ...draft, type })}
          isDisabled={readOnly}
        />
      )}
      {draft.type === 'webhook' ? (
        <>
          {field('webhookUrl', 'Webhook URL', 'url')}
          <Choice
            label="Method"
            value={draft.webhookMethod}
            options={[
              ['POST', 'POST'],
              ['PUT', 'PUT'],
            ]}
            onChange={(webhookMethod) => setDraft({ ...draft, webhookMethod })}
            isDisabled={readOnly}
          />
        </>
      ) : (
        <>
          {field('emailHost', 'SMTP server')}
          {field('emailPort', 'SMTP port')}
          {field('emailUsername', 'SMTP username (optional)')}
          {field('emailFrom', 'From address', 'email')}
          {field('emailTo', 'To addresses (comma-separated)')}
          <Check
            value={draft.emailStartTls}
            onChange={(emailStartTls) => setDraft({ ...draft, emailStartTls })}
            isDisabled={readOnly}
          >
            Use STARTTLS
          </Check>
        </>
      )}
      {field(
        'secret',
        draft.id
          ? 'Secret (leave empty to keep the current one)'
          : draft.type === 'webhook'
            ? 'Secret (optional)'
            : 'SMTP password (optional)',
        'password',
      )}
      <Check
        value={draft.enabled}
        onChange={(enabled) => setDraft({ ...draft, enabled })}
        isDisabled={readOnly}
      >
        Enabled
      </Check>
      <ErrorNote error={save.error} />
      <div className="actions">
        <Button
          type="submit"
          className="button primary"
          isDisabled={readOnly || !draft.name || save.isPending}
        >
          {draft.id ? 'Save channel' : 'Add channel'}
        </Button>
        {draft.id ? (
          <Button className="button" onPress={() => setDraft(EMPTY)}>
            Cancel edit
          </Button>
        ) : null}
      </div>
    </Form>
  );
}

function Channels() {
  const channels = useChannels();
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [tested, setTested] = useState<Record<string, string>>({});
  const test = useMutation({
    mutationFn: (id: string) => api.post('/notifications/channels/{id}/test', { params: { id } }),
    onSuccess: (r, id) =>
      setTested((t) => ({
        ...t,
        [id]: r.success ? 'Test delivered.' : `Test failed: ${r.error ?? 'no reason given'}`,
      })),
  });
  return (
    <Card title="Channels" id="channels">
      <ErrorNote error={channels.error ?? test.error} />
      {!channels.data ? <Loading what="the channels" /> : null}
      {channels.data && channels.data.channels.length === 0 ? (
        <p>No channels: nothing is sent anywhere.</p>
      ) : null}
      {channels.data && channels.data.channels.length > 0 ? (
        <div className="table-wrap">
          <table className="table" data-testid="channels">
            <caption className="sr-only">Notification channels</caption>
            <thead>
              <tr>
                <th scope="col">Channel</th>
                <th scope="col">Type</th>
                <th scope="col">Enabled</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {(channels.data.channels as Channel[]).map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th>
                  <td>{c.type}</td>
                  <td>{c.enabled ? 'yes' : 'no'}</td>
                  <td>
                    <div className="actions">
                      <Button
                        className="button small"
                        isDisabled={readOnly || test.isPending}
                        onPress={() => test.mutate(c.id)}
                        aria-label={`Send a test to ${c.name}`}
                      >
                        Test
                      </Button>
                      <Button
                        className="button small"
                        isDisabled={readOnly || (c.type !== 'webhook' && c.type !== 'email')}
                        onPress={() => setDraft(draftOf(c))}
                        aria-label={`Edit ${c.name}`}
                      >
                        Edit
                      </Button>
                      <ConfirmDialog
                        trigger={`Delete ${c.name}…`}
                        title={`Delete the channel ${c.name}`}
                        confirmLabel="Delete channel"
                        danger
                        isDisabled={readOnly}
                        onConfirm={async () => {
                          await api.delete('/notifications/channels/{id}', { params: { id: c.id } });
                          void qc.invalidateQueries({ queryKey: ['channels'] });
                          void qc.invalidateQueries({ queryKey: ['routing'] });
                        }}
                      >
                        <p>Its routes and queued messages go with it.</p>
                      </ConfirmDialog>
                    </div>
                    {tested[c.id] ? (
                      <p role="status" data-testid="test-result">
                        {tested[c.id]}
                      </p>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {readOnly ? null : <ChannelForm key={draft.id ?? 'new'} draft={draft} setDraft={setDraft} />}
    </Card>
  );
}

/** One event type's row: a change saves that row at once (a full replace of its routing). */
function RoutingRow({
  entry,
  description,
  observed,
  channels,
}: {
  entry: Routing;
  description: string;
  observed: boolean;
  channels: Channel[];
}) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: (next: { severity: Severity; channelIds: string[] }) =>
      api.put('/notifications/routing/{eventType}', { params: { eventType: entry.eventType }, body: next }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['routing'] }),
  });
  const ids = new Set(entry.channelIds);
  return (
    <tr>
      <th scope="row">
        {entry.eventType.replace(/_/g, ' ')}
        <span className="muted small"> — {description}</span>
        <ErrorNote error={save.error} />
      </th>
      <td>{observed ? 'yes' : 'no'}</td>
      <td>
        <Choice
          hideLabel
          label={`Severity of ${entry.eventType}`}
          value={entry.severity}
          options={SEVERITIES}
          onChange={(severity) => save.mutate({ severity, channelIds: entry.channelIds })}
          isDisabled={readOnly || save.isPending}
        />
      </td>
      {channels.map((c) => (
        <td key={c.id}>
          <Check
            value={ids.has(c.id)}
            onChange={(on) =>
              save.mutate({
                severity: entry.severity,
                channelIds: on ? [...entry.channelIds, c.id] : entry.channelIds.filter((i) => i !== c.id),
              })
            }
            isDisabled={readOnly || save.isPending}
            hideLabel
          >
            {`${entry.eventType} to ${c.name}`}
          </Check>
        </td>
      ))}
    </tr>
  );
}

function RoutingMatrix() {
  const routing = useQuery({ queryKey: ['routing'], queryFn: () => api.get('/notifications/routing') });
  const types = useQuery({ queryKey: ['event-types'], queryFn: () => api.get('/notifications/event-types') });
  const channels = useChannels();
  const info = new Map((types.data?.eventTypes ?? []).map((t) => [t.eventType, t]));
  const list = (channels.data?.channels ?? []) as Channel[];
  return (
    <Card title="Routing" id="routing">
      <p className="muted">
        Which events go to which channel, and how severe each is. A change is saved at once.
      </p>
      <ErrorNote error={routing.error ?? types.error} />
      {!routing.data || !types.data ? <Loading what="the routing" /> : null}
      {routing.data && types.data ? (
        <div className="table-wrap">
          <table className="table routing" data-testid="routing">
            <caption className="sr-only">Event types, their severity and their channels</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Watched here</th>
                <th scope="col">Severity</th>
                {list.map((c) => (
                  <th scope="col" key={c.id}>
                    {c.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {routing.data.routing.map((r) => (
                <RoutingRow
                  key={r.eventType}
                  entry={r}
                  description={info.get(r.eventType)?.description ?? ''}
                  observed={info.get(r.eventType)?.observed ?? false}
                  channels={list}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Card>
  );
}

function Alerts() {
  const alerts = useQuery({ queryKey: ['alerts', 'page'], queryFn: () => api.get('/notifications/alerts') });
  return (
    <Card title="Alerts" id="alerts-list">
      <ErrorNote error={alerts.error} />
      {!alerts.data ? <Loading what="the alerts" /> : null}
      {alerts.data && alerts.data.alerts.length === 0 ? <p>No alerts.</p> : null}
      {alerts.data && alerts.data.alerts.length > 0 ? (
        <ul className="alerts" data-testid="alerts">
          {alerts.data.alerts.map((a) => (
            <li key={a.id}>
              <StateBadge state={a.severity} /> <strong>{a.title}</strong> {a.message}{' '}
              <span className="muted">{formatTime(a.occurredAt)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </Card>
  );
}

export function Notifications() {
  return (
    <Page title="Notifications">
      <div className="grid">
        <Channels />
        <Alerts />
      </div>
      <RoutingMatrix />
    </Page>
  );
}
