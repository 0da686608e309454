import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link, useNavigate, useParams } from 'react-router';
import { api, formatBytes } from '../api.ts';
import { Check, Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, KeyValues, Loading, Page, StateBadge } from '../ui.tsx';

type Share = Awaited<ReturnType<typeof api.get<'/shares/{name}'>>>;
type CacheMode = Share['cacheMode'];
type Policy = Share['createPolicy'];
type Level = 'none' | 'read-only' | 'read-write';
type Report = Awaited<ReturnType<typeof api.post<'/shares/{name}/data/delete'>>>;

const CACHE_MODES: ReadonlyArray<readonly [CacheMode, string]> = [
  ['array-only', 'array only (data disks)'],
  ['cache-then-move', 'cache, then moved to the data disks'],
  ['cache-only', 'cache only'],
];
const POLICIES: ReadonlyArray<readonly [Policy, string]> = [
  ['mfs', 'most free space (mfs)'],
  ['lfs', 'least free space (lfs)'],
  ['ff', 'first found (ff)'],
  ['epmfs', 'existing path, most free space (epmfs)'],
  ['mspmfs', 'most shared path, most free space (mspmfs)'],
];
/** A matrix cell: no row at all, or an explicit row (`none` is an explicit deny). */
const LEVELS: ReadonlyArray<readonly [Level | 'unset', string]> = [
  ['unset', 'no grant'],
  ['none', 'denied'],
  ['read-only', 'read-only'],
  ['read-write', 'read-write'],
];

export const useShares = () => useQuery({ queryKey: ['shares'], queryFn: () => api.get('/shares') });

/** The settings of a share, for create (with a name) and edit. */
function ShareSettings({
  value,
  onChange,
  readOnly,
}: {
  value: Pick<Share, 'cacheMode' | 'createPolicy' | 'smb'>;
  onChange: (v: Pick<Share, 'cacheMode' | 'createPolicy' | 'smb'>) => void;
  readOnly: boolean;
}) {
  return (
    <>
      <Choice
        label="Cache mode"
        value={value.cacheMode}
        options={CACHE_MODES}
        onChange={(cacheMode) => onChange({ ...value, cacheMode })}
        isDisabled={readOnly}
      />
      <Choice
        label="Where new files go (create policy)"
        value={value.createPolicy}
        options={POLICIES}
        onChange={(createPolicy) => onChange({ ...value, createPolicy })}
        isDisabled={readOnly}
      />
      <Check
        value={value.smb.enabled}
        onChange={(enabled) => onChange({ ...value, smb: { ...value.smb, enabled } })}
        isDisabled={readOnly}
      >
        Shared over SMB
      </Check>
      <Check
        value={value.smb.browseable}
        onChange={(browseable) => onChange({ ...value, smb: { ...value.smb, browseable } })}
        isDisabled={readOnly}
      >
        Listed when browsing the network
      </Check>
    </>
  );
}

function CreateShare() {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [settings, setSettings] = useState<Pick<Share, 'cacheMode' | 'createPolicy' | 'smb'>>({
    cacheMode: 'array-only',
    createPolicy: 'mfs',
    smb: { enabled: true, browseable: true },
  });
  const create = useMutation({
    mutationFn: () => api.post('/shares', { body: { name, ...settings } }),
    onSuccess: async (share) => {
      await qc.invalidateQueries({ queryKey: ['shares'] });
      navigate(`/shares/${encodeURIComponent(share.name)}`);
    },
  });
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <TextField className="field" value={name} onChange={setName} isDisabled={readOnly} isRequired>
        <Label>Name</Label>
        <Input autoComplete="off" spellCheck={false} />
      </TextField>
      <ShareSettings value={settings} onChange={setSettings} readOnly={readOnly} />
      <p className="muted">A new share is closed: give users or groups access on its page.</p>
      <ErrorNote error={create.error} />
      <Button type="submit" className="button primary" isDisabled={readOnly || create.isPending || !name}>
        Create share
      </Button>
    </Form>
  );
}

export function Shares() {
  const shares = useShares();
  return (
    <Page title="Shares">
      <div className="grid">
        <Card title="Shares" id="share-list">
          <ErrorNote error={shares.error} />
          {!shares.data ? <Loading what="the shares" /> : null}
          {shares.data && shares.data.shares.length === 0 ? <p>No shares yet.</p> : null}
          {shares.data && shares.data.shares.length > 0 ? (
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Shares</caption>
                <thead>
                  <tr>
                    <th scope="col">Share</th>
                    <th scope="col">Folder</th>
                    <th scope="col">Cache mode</th>
                    <th scope="col">SMB</th>
                  </tr>
                </thead>
                <tbody>
                  {shares.data.shares.map((s) => (
                    <tr key={s.name}>
                      <td>
                        <Link to={`/shares/${encodeURIComponent(s.name)}`}>{s.name}</Link>
                      </td>
                      <td>{s.path}</td>
                      <td>{s.cacheMode}</td>
                      <td>{s.smb.enabled ? (s.smb.browseable ? 'on' : 'on, hidden') : 'off'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </Card>
        <Card title="New share" id="new-share">
          <CreateShare />
        </Card>
      </div>
    </Page>
  );
}

function EditShare({ share }: { share: Share }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [v, setV] = useState<Pick<Share, 'cacheMode' | 'createPolicy' | 'smb'>>(share);
  const [saved, setSaved] = useState(false);
  useEffect(() => setV(share), [share]);
  const save = useMutation({
    mutationFn: () =>
      api.put('/shares/{name}', {
        params: { name: share.name },
        body: { cacheMode: v.cacheMode, createPolicy: v.createPolicy, smb: v.smb },
      }),
    onSuccess: (data) => {
      qc.setQueryData(['share', share.name], data);
      void qc.invalidateQueries({ queryKey: ['shares'] });
      setSaved(true);
    },
  });
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        save.mutate();
      }}
    >
      <ShareSettings
        value={v}
        onChange={(n) => {
          setSaved(false);
          setV(n);
        }}
        readOnly={readOnly}
      />
      <ErrorNote error={save.error} />
      {saved ? <p role="status">Saved.</p> : null}
      <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
        Save share
      </Button>
    </Form>
  );
}

type Cell = Level | 'unset';

/**
 * Users and groups × level. Saved as one full replace (`PUT /shares/:name/permissions`): the rows
 * after saving are exactly the cells that are not "no grant".
 */
function AccessMatrix({ name }: { name: string }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const users = useQuery({ queryKey: ['users'], queryFn: () => api.get('/users') });
  const groups = useQuery({ queryKey: ['user-groups'], queryFn: () => api.get('/user-groups') });
  const perms = useQuery({
    queryKey: ['share-permissions', name],
    queryFn: () => api.get('/shares/{name}/permissions', { params: { name } }),
  });
  const access = useQuery({
    queryKey: ['share-access', name],
    queryFn: () => api.get('/shares/{name}/access', { params: { name } }),
  });
  const [cells, setCells] = useState<Record<string, Cell>>({});
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!perms.data) return;
    const next: Record<string, Cell> = {};
    for (const u of perms.data.users) next[`user:${u.userId}`] = u.access;
    for (const g of perms.data.groups) next[`group:${g.groupId}`] = g.access;
    setCells(next);
  }, [perms.data]);
  const save = useMutation({
    mutationFn: () => {
      const rows = Object.entries(cells).filter((e): e is [string, Level] => e[1] !== 'unset');
      return api.put('/shares/{name}/permissions', {
        params: { name },
        body: {
          users: rows
            .filter(([k]) => k.startsWith('user:'))
            .map(([k, access]) => ({ userId: k.slice(5), access })),
          groups: rows
            .filter(([k]) => k.startsWith('group:'))
            .map(([k, access]) => ({ groupId: k.slice(6), access })),
        },
      });
    },
    onSuccess: (data) => {
      qc.setQueryData(['share-permissions', name], data);
      void qc.invalidateQueries({ queryKey: ['share-access', name] });
      setSaved(true);
    },
  });
  const principals = [
    ...(users.data?.users ?? []).map((u) => ({ key: `user:${u.id}`, kind: 'user', label: u.username })),
    ...(groups.data?.groups ?? []).map((g) => ({ key: `group:${g.id}`, kind: 'group', label: g.name })),
  ];
  const error = users.error ?? groups.error ?? perms.error;
  return (
    <div className="grid">
      <Card title="Access" id="access-matrix">
        <ErrorNote error={error} />
        {!perms.data || !users.data || !groups.data ? <Loading what="the grants" /> : null}
        {perms.data && users.data && groups.data ? (
          <Form
            className="form"
            onSubmit={(e) => {
              e.preventDefault();
              setSaved(false);
              save.mutate();
            }}
          >
            <div className="table-wrap">
              <table className="table">
                <caption className="sr-only">Grants of {name}: users and groups</caption>
                <thead>
                  <tr>
                    <th scope="col">User or group</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Grant</th>
                  </tr>
                </thead>
                <tbody>
                  {principals.map((p) => (
                    <tr key={p.key}>
                      <th scope="row">{p.label}</th>
                      <td>{p.kind}</td>
                      <td>
                        <Choice
                          hideLabel
                          label={`Grant of ${p.kind} ${p.label}`}
                          value={cells[p.key] ?? 'unset'}
                          options={LEVELS}
                          onChange={(c) => {
                            setSaved(false);
                            setCells((o) => ({ ...o, [p.key]: c }));
                          }}
                          isDisabled={readOnly}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p className="muted">
              A user's own grant always wins, even "denied" over a group's; otherwise the widest grant of the
              user's groups applies.
            </p>
            <ErrorNote error={save.error} />
            {saved ? <p role="status">Access saved.</p> : null}
            <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
              Save access
            </Button>
          </Form>
        ) : null}
      </Card>
      <Card title="Effective access" id="effective-access">
        <ErrorNote error={access.error} />
        {!access.data ? <Loading what="the effective access" /> : null}
        {access.data ? (
          <>
            <p data-testid="share-available">
              {access.data.available
                ? 'Open: Samba serves this share to the users below.'
                : 'Closed: no user can reach this share.'}
            </p>
            <div className="table-wrap">
              <table className="table" data-testid="effective-access">
                <caption className="sr-only">What Samba enforces for each user</caption>
                <thead>
                  <tr>
                    <th scope="col">User</th>
                    <th scope="col">Access</th>
                    <th scope="col">From</th>
                  </tr>
                </thead>
                <tbody>
                  {access.data.users.map((u) => (
                    <tr key={u.userId}>
                      <th scope="row">{u.username}</th>
                      <td>{u.access}</td>
                      <td>
                        {u.source === 'user' ? 'own grant' : u.source === 'group' ? 'a group' : 'no grant'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ) : null}
      </Card>
    </div>
  );
}

function ReportTable({ report }: { report: Report }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid={report.dryRun ? 'dry-run' : 'delete-report'}>
        <caption className="sr-only">
          {report.dryRun ? 'What would be deleted, per disk' : 'What was deleted, per disk'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Folder</th>
            <th scope="col">Files</th>
            <th scope="col">Folders</th>
            <th scope="col">Space</th>
          </tr>
        </thead>
        <tbody>
          {report.branches.map((b) => (
            <tr key={b.path}>
              <th scope="row">{b.path}</th>
              <td>{b.present ? b.filesDeleted : 'absent'}</td>
              <td>{b.present ? b.dirsDeleted : '—'}</td>
              <td>{b.present ? formatBytes(b.bytesFreed) : '—'}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">Total</th>
            <td>{report.totals.filesDeleted}</td>
            <td>{report.totals.dirsDeleted}</td>
            <td>{formatBytes(report.totals.bytesFreed)}</td>
          </tr>
        </tbody>
      </table>
      {report.untouched.length > 0 ? (
        <p className="muted">
          Left alone (not a folder of this share's cache mode):{' '}
          {report.untouched.map((u) => u.path).join(', ')}
        </p>
      ) : null}
    </div>
  );
}

/** Delete the share's files: the dry run's per-disk result first, then the typed confirmation. */
function DeleteData({ name }: { name: string }) {
  const readOnly = useReadOnly();
  const [dry, setDry] = useState<Report | null>(null);
  const [done, setDone] = useState<Report | null>(null);
  const preview = useMutation({
    // the dry run needs the confirmation too; it deletes nothing, so the page supplies the name
    mutationFn: () =>
      api.post('/shares/{name}/data/delete', {
        params: { name },
        body: { confirmation: name, dryRun: true },
      }),
    onSuccess: (r) => {
      setDry(r);
      setDone(null);
    },
  });
  return (
    <Card title="Delete the share's files" id="delete-data">
      <p>
        Deletes every file of this share on each disk that holds it. The share, its access and its SMB section
        stay. A preview comes first.
      </p>
      <ErrorNote error={preview.error} />
      {done ? (
        <>
          <p role="status">Deleted.</p>
          <ReportTable report={done} />
        </>
      ) : null}
      {dry && !done ? (
        <>
          <h3>Would be deleted</h3>
          <ReportTable report={dry} />
        </>
      ) : null}
      <div className="actions">
        <Button
          className="button"
          onPress={() => preview.mutate()}
          isDisabled={readOnly || preview.isPending}
        >
          Preview the delete
        </Button>
        <ConfirmDialog
          trigger="Delete the files…"
          title={`Delete every file of ${name}`}
          phrase={name}
          confirmLabel="Delete the files"
          danger
          isDisabled={readOnly || !dry}
          onConfirm={async (typed) => {
            const r = await api.post('/shares/{name}/data/delete', {
              params: { name },
              body: { confirmation: typed, dryRun: false },
            });
            setDone(r);
            setDry(null);
          }}
        >
          {dry ? (
            <p>
              {dry.totals.filesDeleted} files and {dry.totals.dirsDeleted} folders (
              {formatBytes(dry.totals.bytesFreed)}) on {dry.branches.filter((b) => b.present).length} disks.
              This cannot be undone.
            </p>
          ) : null}
        </ConfirmDialog>
      </div>
    </Card>
  );
}

/** `/shares/:name`: a fresh page per share (no preview or edit carried over from another). */
export function ShareDetail() {
  const name = useParams()['name'] ?? '';
  return <ShareDetailOf key={name} name={name} />;
}

function ShareDetailOf({ name }: { name: string }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const share = useQuery({
    queryKey: ['share', name],
    queryFn: () => api.get('/shares/{name}', { params: { name } }),
  });
  return (
    <Page
      title={`Share ${name}`}
      actions={
        <ConfirmDialog
          trigger="Delete share…"
          title={`Delete the share ${name}`}
          confirmLabel="Delete share"
          danger
          isDisabled={readOnly || !share.data}
          onConfirm={async () => {
            await api.delete('/shares/{name}', { params: { name } });
            qc.removeQueries({ queryKey: ['share', name] });
            await qc.invalidateQueries({ queryKey: ['shares'] });
            navigate('/shares');
          }}
        >
          <p>
            The share and its access go, and its SMB section is removed. Its files stay on the disks (delete
            them first with "Delete the share's files" if you want them gone).
          </p>
        </ConfirmDialog>
      }
    >
      <p>
        <Link to="/shares">All shares</Link>
      </p>
      <ErrorNote error={share.error} />
      {!share.data && !share.error ? <Loading what="the share" /> : null}
      {share.data ? (
        <>
          <div className="grid">
            <Card title="Settings" id="share-settings">
              <KeyValues
                rows={[
                  ['Folder', share.data.path],
                  ['SMB', <StateBadge key="smb" state={share.data.smb.enabled ? 'on' : 'off'} />],
                ]}
              />
              <EditShare share={share.data} />
            </Card>
            <DeleteData name={name} />
          </div>
          <AccessMatrix name={name} />
        </>
      ) : null}
    </Page>
  );
}
