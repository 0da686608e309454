import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { Link, useParams } from 'react-router';
import { api } from '../api.ts';
import { Choice } from '../forms.tsx';
import { useReadOnly } from '../session.tsx';
import { Card, ErrorNote, Loading, Page } from '../ui.tsx';

type Level = 'none' | 'read-only' | 'read-write';
type Cell = Level | 'unset';

/** A cell: no row of this user's own, or an explicit row (`none` is an explicit deny). */
const LEVELS: ReadonlyArray<readonly [Cell, string]> = [
  ['unset', 'no grant'],
  ['none', 'denied'],
  ['read-only', 'read-only'],
  ['read-write', 'read-write'],
];

const SOURCE_WORDS = { user: 'own grant', group: 'a group', none: 'no grant' } as const;

/**
 * The user-side share editor (`/users/:id/permissions`): one user's own grant on every share, saved
 * as one full replace (`PUT /users/:id/permissions`); the share-side matrix edits the same rows.
 * Beside each, the effective access the API computes for that share (`GET /shares/:name/access`).
 */
export function UserPermissions() {
  const { id = '' } = useParams();
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const shares = useQuery({ queryKey: ['shares'], queryFn: () => api.get('/shares') });
  const perms = useQuery({
    queryKey: ['user-permissions', id],
    queryFn: () => api.get('/users/{id}/permissions', { params: { id } }),
  });
  const names = (shares.data?.shares ?? []).map((s) => s.name);
  const access = useQueries({
    queries: names.map((name) => ({
      queryKey: ['share-access', name],
      queryFn: () => api.get('/shares/{name}/access', { params: { name } }),
    })),
  });
  const [cells, setCells] = useState<Record<string, Cell>>({});
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!perms.data) return;
    setCells(Object.fromEntries(perms.data.permissions.map((p) => [p.shareName, p.access])));
  }, [perms.data]);
  const save = useMutation({
    mutationFn: () =>
      api.put('/users/{id}/permissions', {
        params: { id },
        body: {
          permissions: Object.entries(cells)
            .filter((e): e is [string, Level] => e[1] !== 'unset')
            .map(([shareName, level]) => ({ shareName, access: level })),
        },
      }),
    onSuccess: (data) => {
      qc.setQueryData(['user-permissions', id], data);
      void qc.invalidateQueries({ queryKey: ['share-access'] });
      void qc.invalidateQueries({ queryKey: ['share-permissions'] });
      setSaved(true);
    },
  });
  const username = perms.data?.username;
  const error = perms.error ?? shares.error;
  return (
    <Page title={username ? `Share access of ${username}` : 'Share access'}>
      <p>
        <Link to="/users">All users</Link>
      </p>
      <Card title="Grants on every share" id="user-grants">
        <ErrorNote error={error} />
        {!error && (!perms.data || !shares.data) ? <Loading what="the grants" /> : null}
        {perms.data && shares.data ? (
          names.length === 0 ? (
            <p>
              No shares yet: create one on <Link to="/shares">Shares</Link>.
            </p>
          ) : (
            <Form
              className="form"
              onSubmit={(e) => {
                e.preventDefault();
                setSaved(false);
                save.mutate();
              }}
            >
              <div className="table-wrap">
                <table className="table" data-testid="user-grants">
                  <caption className="sr-only">Grants of {username} on every share</caption>
                  <thead>
                    <tr>
                      <th scope="col">Share</th>
                      <th scope="col">Own grant</th>
                      <th scope="col">Effective access</th>
                    </tr>
                  </thead>
                  <tbody>
                    {names.map((name, i) => {
                      const mine = access[i]?.data?.users.find((u) => u.userId === id);
                      return (
                        <tr key={name}>
                          <th scope="row">
                            <Link to={`/shares/${encodeURIComponent(name)}`}>{name}</Link>
                          </th>
                          <td>
                            <Choice
                              hideLabel
                              label={`Grant on ${name}`}
                              value={cells[name] ?? 'unset'}
                              options={LEVELS}
                              onChange={(c) => {
                                setSaved(false);
                                setCells((o) => ({ ...o, [name]: c }));
                              }}
                              isDisabled={readOnly}
                            />
                          </td>
                          <td data-testid={`effective-${name}`}>
                            {mine ? `${mine.access} (${SOURCE_WORDS[mine.source]})` : '…'}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
              <p className="muted">
                The user's own grant always wins, even "denied" over a group's; otherwise the widest grant of
                the user's groups applies. Saving replaces all of this user's own grants.
              </p>
              <ErrorNote error={save.error} />
              {saved ? <p role="status">Share access saved.</p> : null}
              <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
                Save share access
              </Button>
            </Form>
          )
        ) : null}
      </Card>
    </Page>
  );
}
