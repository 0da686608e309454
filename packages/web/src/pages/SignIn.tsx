import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { api } from '../api.ts';
import { ErrorNote } from '../ui.tsx';

/** Sign-in, or the first-run page creating the administrator when none exists. */
export function SignIn({ firstRun }: { firstRun: boolean }) {
  const qc = useQueryClient();
  const [username, setUsername] = useState(firstRun ? 'admin' : '');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const mismatch = firstRun && repeat !== '' && repeat !== password;
  return (
    <main className="signin" id="main">
      <Form
        className="signin-card"
        aria-labelledby="signin-title"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            if (firstRun) await api.post('/setup/admin', { body: { username, password } });
            await api.post('/session', { body: { username, password } });
            await qc.invalidateQueries({ queryKey: ['session'] });
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1 id="signin-title">{firstRun ? 'Set up your appliance' : 'Sign in'}</h1>
        {firstRun ? (
          <p>No administrator exists yet. Create the administrator account; you will use it to sign in.</p>
        ) : null}
        <TextField
          className="field"
          value={username}
          onChange={setUsername}
          isRequired
          autoComplete="username"
        >
          <Label>Username</Label>
          <Input />
        </TextField>
        <TextField
          className="field"
          type="password"
          value={password}
          onChange={setPassword}
          isRequired
          autoComplete={firstRun ? 'new-password' : 'current-password'}
        >
          <Label>Password</Label>
          <Input />
        </TextField>
        {firstRun ? (
          <TextField
            className="field"
            type="password"
            value={repeat}
            onChange={setRepeat}
            isRequired
            autoComplete="new-password"
            isInvalid={mismatch}
          >
            <Label>Password again</Label>
            <Input />
            {mismatch ? (
              <p className="error">The two passwords differ; type the same password twice.</p>
            ) : null}
          </TextField>
        ) : null}
        <ErrorNote error={error} />
        <Button type="submit" className="button primary" isDisabled={busy || mismatch}>
          {firstRun ? 'Create administrator' : 'Sign in'}
        </Button>
      </Form>
    </main>
  );
}
