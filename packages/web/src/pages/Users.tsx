import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  Button,
  Dialog,
  DialogTrigger,
  Form,
  Heading,
  Input,
  Label,
  Modal,
  ModalOverlay,
  TextField,
} from 'react-aria-components';
import { Link } from 'react-router';
import { api, formatTime } from '../api.ts';
import { Check, Choice, toggled } from '../forms.tsx';
import { useMe, useReadOnly } from '../session.tsx';
import { Card, ConfirmDialog, ErrorNote, Loading, Page } from '../ui.tsx';

type User = Awaited<ReturnType<typeof api.get<'/users'>>>['users'][number];
type Group = Awaited<ReturnType<typeof api.get<'/user-groups'>>>['groups'][number];
type NewRole = 'share-only' | 'viewer';

const ROLE_WORDS: Record<User['role'], string> = {
  admin: 'administrator',
  viewer: 'viewer (reads everything, changes nothing)',
  'share-only': 'share access only (no sign-in)',
};

const useUsers = () => useQuery({ queryKey: ['users'], queryFn: () => api.get('/users') });
const useGroups = () => useQuery({ queryKey: ['user-groups'], queryFn: () => api.get('/user-groups') });

/** A password change in a dialog (React Aria: focus trapped, Escape closes). */
function PasswordDialog({ user, isDisabled }: { user: User; isDisabled: boolean }) {
  const qc = useQueryClient();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  return (
    <DialogTrigger
      onOpenChange={() => {
        setPassword('');
        setError(null);
      }}
    >
      <Button
        className="button small"
        isDisabled={isDisabled}
        aria-label={`Change the password of ${user.username}`}
      >
        Password…
      </Button>
      <ModalOverlay className="overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <form
                onSubmit={async (e) => {
                  e.preventDefault();
                  setError(null);
                  try {
                    await api.patch('/users/{id}', { params: { id: user.id }, body: { password } });
                    void qc.invalidateQueries({ queryKey: ['users'] });
                    close();
                  } catch (err) {
                    setError(err);
                  }
                }}
              >
                <Heading slot="title">New password for {user.username}</Heading>
                <TextField
                  className="field"
                  value={password}
                  onChange={setPassword}
                  type="password"
                  autoFocus
                >
                  <Label>New password</Label>
                  <Input autoComplete="new-password" />
                </TextField>
                <ErrorNote error={error} />
                <div className="actions">
                  <Button className="button" onPress={close}>
                    Cancel
                  </Button>
                  <Button type="submit" className="button primary" isDisabled={!password}>
                    Set password
                  </Button>
                </div>
              </form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

/**
 * A role change in a dialog: viewer or share access only (the administrator's role never changes;
 * the API refuses it). Share access only revokes the account's tokens, so the dialog says so.
 */
function RoleDialog({ user, isDisabled }: { user: User; isDisabled: boolean }) {
  const qc = useQueryClient();
  const [role, setRole] = useState<NewRole>(user.role === 'share-only' ? 'share-only' : 'viewer');
  const [error, setError] = useState<unknown>(null);
  return (
    <DialogTrigger
      onOpenChange={() => {
        setRole(user.role === 'share-only' ? 'share-only' : 'viewer');
        setError(null);
      }}
    >
      <Button
        className="button small"
        isDisabled={isDisabled}
        aria-label={`Change the role of ${user.username}`}
      >
        Role…
      </Button>
      <ModalOverlay className="overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <form
                onSubmit={async (e) => {
                  e.preventDefault();
                  setError(null);
                  try {
                    await api.patch('/users/{id}', { params: { id: user.id }, body: { role } });
                    void qc.invalidateQueries({ queryKey: ['users'] });
                    void qc.invalidateQueries({ queryKey: ['tokens'] });
                    close();
                  } catch (err) {
                    setError(err);
                  }
                }}
              >
                <Heading slot="title">Role of {user.username}</Heading>
                <Choice
                  label={`New role of ${user.username}`}
                  value={role}
                  options={[
                    ['viewer', ROLE_WORDS.viewer],
                    ['share-only', ROLE_WORDS['share-only']],
                  ]}
                  onChange={setRole}
                />
                {role === 'share-only' && user.role !== 'share-only' ? (
                  <p>
                    {user.username} can no longer sign in, and every API token of {user.username} is revoked.
                    Share access stays.
                  </p>
                ) : null}
                <ErrorNote error={error} />
                <div className="actions">
                  <Button className="button" onPress={close}>
                    Cancel
                  </Button>
                  <Button type="submit" className="button primary" isDisabled={role === user.role}>
                    Set role
                  </Button>
                </div>
              </form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

function UsersCard() {
  const users = useUsers();
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<NewRole>('share-only');
  const [password, setPassword] = useState('');
  const create = useMutation({
    mutationFn: () => api.post('/users', { body: { username, role, ...(password ? { password } : {}) } }),
    onSuccess: () => {
      setUsername('');
      setPassword('');
      void qc.invalidateQueries({ queryKey: ['users'] });
    },
  });
  return (
    <Card title="Users" id="users">
      <ErrorNote error={users.error} />
      {!users.data ? <Loading what="the users" /> : null}
      {users.data ? (
        <div className="table-wrap">
          <table className="table" data-testid="users">
            <caption className="sr-only">Accounts</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Role</th>
                <th scope="col">Password</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.data.users.map((u) => (
                <tr key={u.id}>
                  <th scope="row">{u.username}</th>
                  <td>{ROLE_WORDS[u.role]}</td>
                  <td>{u.hasPassword ? 'set' : 'not set'}</td>
                  <td className="actions">
                    <Link className="button" to={`/users/${u.id}/permissions`}>
                      Share access<span className="sr-only"> of {u.username}</span>
                    </Link>
                    <RoleDialog user={u} isDisabled={readOnly || u.role === 'admin'} />
                    <PasswordDialog user={u} isDisabled={readOnly} />
                    <ConfirmDialog
                      trigger={`Delete ${u.username}…`}
                      title={`Delete the account ${u.username}`}
                      phrase={u.username}
                      confirmLabel="Delete account"
                      danger
                      isDisabled={readOnly || u.role === 'admin'}
                      onConfirm={async () => {
                        await api.delete('/users/{id}', { params: { id: u.id } });
                        void qc.invalidateQueries({ queryKey: ['users'] });
                        void qc.invalidateQueries({ queryKey: ['user-groups'] });
                        void qc.invalidateQueries({ queryKey: ['tokens'] });
                      }}
                    >
                      <p>Its tokens, group memberships and share access go with it. Its files stay.</p>
                    </ConfirmDialog>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <h3>New user</h3>
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <TextField className="field" value={username} onChange={setUsername} isDisabled={readOnly}>
          <Label>Username</Label>
          <Input autoComplete="off" spellCheck={false} />
        </TextField>
        <Choice
          label="Role"
          value={role}
          options={[
            ['share-only', ROLE_WORDS['share-only']],
            ['viewer', ROLE_WORDS.viewer],
          ]}
          onChange={setRole}
          isDisabled={readOnly}
        />
        <TextField
          className="field"
          value={password}
          onChange={setPassword}
          type="password"
          isDisabled={readOnly}
        >
          <Label>Password (optional)</Label>
          <Input autoComplete="new-password" />
        </TextField>
        <ErrorNote error={create.error} />
        <Button
          type="submit"
          className="button primary"
          isDisabled={readOnly || !username || create.isPending}
        >
          Create user
        </Button>
      </Form>
    </Card>
  );
}

/** One group's members, saved as one full replace. */
function GroupMembers({ group, users }: { group: Group; users: User[] }) {
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [members, setMembers] = useState(new Set(group.memberUserIds));
  const saved = group.memberUserIds.join();
  useEffect(() => setMembers(new Set(saved ? saved.split(',') : [])), [saved]);
  const save = useMutation({
    mutationFn: () =>
      api.put('/user-groups/{id}/members', { params: { id: group.id }, body: { userIds: [...members] } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['user-groups'] });
      void qc.invalidateQueries({ queryKey: ['share-access'] });
    },
  });
  return (
    <Form
      className="form"
      aria-label={`Members of ${group.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <fieldset>
        <legend>Members of {group.name}</legend>
        {users.map((u) => (
          <Check
            key={u.id}
            value={members.has(u.id)}
            onChange={(on) => setMembers((m) => toggled(m, u.id, on))}
            isDisabled={readOnly}
          >
            {`${u.username} in ${group.name}`}
          </Check>
        ))}
      </fieldset>
      <ErrorNote error={save.error} />
      {save.isSuccess ? <p role="status">Members saved.</p> : null}
      <div className="actions">
        <Button type="submit" className="button primary" isDisabled={readOnly || save.isPending}>
          Save members of {group.name}
        </Button>
        <ConfirmDialog
          trigger={`Delete group ${group.name}…`}
          title={`Delete the group ${group.name}`}
          confirmLabel="Delete group"
          danger
          isDisabled={readOnly}
          onConfirm={async () => {
            await api.delete('/user-groups/{id}', { params: { id: group.id } });
            void qc.invalidateQueries({ queryKey: ['user-groups'] });
          }}
        >
          <p>Its members keep their accounts; the share access given to the group goes.</p>
        </ConfirmDialog>
      </div>
    </Form>
  );
}

function GroupsCard() {
  const users = useUsers();
  const groups = useGroups();
  const readOnly = useReadOnly();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => api.post('/user-groups', { body: { name } }),
    onSuccess: () => {
      setName('');
      void qc.invalidateQueries({ queryKey: ['user-groups'] });
    },
  });
  return (
    <Card title="Groups" id="groups">
      <ErrorNote error={groups.error} />
      {!groups.data || !users.data ? <Loading what="the groups" /> : null}
      {groups.data && users.data && groups.data.groups.length === 0 ? <p>No groups yet.</p> : null}
      {groups.data && users.data
        ? groups.data.groups.map((g) => <GroupMembers key={g.id} group={g} users={users.data.users} />)
        : null}
      <h3>New group</h3>
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <TextField className="field" value={name} onChange={setName} isDisabled={readOnly}>
          <Label>Group name</Label>
          <Input autoComplete="off" />
        </TextField>
        <ErrorNote error={create.error} />
        <Button type="submit" className="button primary" isDisabled={readOnly || !name || create.isPending}>
          Create group
        </Button>
      </Form>
    </Card>
  );
}

function TokensCard() {
  const me = useMe();
  const qc = useQueryClient();
  const tokens = useQuery({ queryKey: ['tokens'], queryFn: () => api.get('/tokens') });
  const [name, setName] = useState('');
  const [role, setRole] = useState<'admin' | 'viewer'>(me.role);
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => api.post('/tokens', { body: { name, role } }),
    onSuccess: (t) => {
      setSecret({ name: t.name, token: t.token });
      setCopied(null);
      setName('');
      void qc.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete('/tokens/{id}', { params: { id } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['tokens'] }),
  });
  return (
    <Card title="API tokens" id="tokens">
      <p className="muted">
        {me.role === 'admin' ? 'Every account’s tokens.' : 'Your tokens.'} A token acts as its account for
        scripts and the command line.
      </p>
      <ErrorNote error={tokens.error ?? revoke.error} />
      {!tokens.data ? <Loading what="the tokens" /> : null}
      {tokens.data && tokens.data.tokens.length === 0 ? <p>No tokens.</p> : null}
      {tokens.data && tokens.data.tokens.length > 0 ? (
        <div className="table-wrap">
          <table className="table" data-testid="tokens">
            <caption className="sr-only">API tokens</caption>
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col">Account</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.tokens.map((t) => (
                <tr key={t.id}>
                  <th scope="row">{t.name}</th>
                  <td>{t.username}</td>
                  <td>{t.role}</td>
                  <td>{formatTime(t.createdAt)}</td>
                  <td data-testid="last-used">{formatTime(t.lastUsedAt)}</td>
                  <td>{t.expiresAt ? formatTime(t.expiresAt) : 'never'}</td>
                  <td>
                    <Button
                      className="button small danger"
                      onPress={() => revoke.mutate(t.id)}
                      isDisabled={revoke.isPending}
                      aria-label={`Revoke ${t.name}`}
                    >
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {secret ? (
        <div className="secret" role="status">
          <p>
            The token <strong>{secret.name}</strong>, shown this once: copy it now.
          </p>
          <code data-testid="token-secret">{secret.token}</code>{' '}
          <Button
            className="button small"
            onPress={async () => {
              try {
                await navigator.clipboard.writeText(secret.token);
                setCopied('Copied.');
              } catch {
                setCopied('The browser refused the clipboard: select the token and copy it.');
              }
            }}
          >
            Copy
          </Button>
          {copied ? <span> {copied}</span> : null}
        </div>
      ) : null}
      <h3>New token</h3>
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <TextField className="field" value={name} onChange={setName}>
          <Label>Token name</Label>
          <Input autoComplete="off" />
        </TextField>
        <Choice
          label="Token role"
          value={role}
          options={
            me.role === 'admin'
              ? [
                  ['admin', 'administrator'],
                  ['viewer', 'viewer'],
                ]
              : [['viewer', 'viewer']]
          }
          onChange={setRole}
        />
        <ErrorNote error={create.error} />
        <Button type="submit" className="button primary" isDisabled={!name || create.isPending}>
          Create token
        </Button>
      </Form>
    </Card>
  );
}

export function Users() {
  return (
    <Page title="Users and tokens">
      <div className="grid">
        <UsersCard />
        <GroupsCard />
      </div>
      <TokensCard />
    </Page>
  );
}
