import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { NavLink, Outlet } from 'react-router';
import { api } from './api.ts';
import { LiveProvider, useLive } from './live.tsx';
import { type Me, MeProvider, signedOut } from './session.tsx';
import { ErrorNote } from './ui.tsx';

const links = [
  ['/', 'Dashboard'],
  ['/disks', 'Disks'],
  ['/parity', 'Parity'],
  ['/jobs', 'Jobs'],
  ['/backups', 'Backups'],
  ['/external-disks', 'External disks'],
  ['/shares', 'Shares'],
  ['/apps', 'Apps'],
  ['/notifications', 'Notifications'],
  ['/users', 'Users'],
  ['/mover', 'Mover'],
  ['/updates', 'Updates'],
  ['/settings', 'Settings'],
  ['/configuration', 'Configuration'],
  ['/audit', 'Audit'],
] as const;

/**
 * The signed-in shell: navigation, who is signed in, sign-out, the live connection. Part 2 adds
 * its pages as routes under it (routes.tsx) and links here.
 */
function Live() {
  const state = useLive();
  return (
    <span className={`live live-${state}`} role="status" data-testid="live">
      {state === 'live' ? 'Live' : state === 'reconnecting' ? 'Reconnecting…' : 'Connecting…'}
    </span>
  );
}

export function Layout({ me }: { me: Me }) {
  const qc = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  return (
    <MeProvider me={me}>
      <LiveProvider>
        <a className="skip" href="#main">
          Skip to content
        </a>
        <header className="top">
          <span className="brand">Appliance</span>
          <nav aria-label="Main">
            <ul>
              {links.map(([to, text]) => (
                <li key={to}>
                  <NavLink to={to} end={to === '/'}>
                    {text}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <div className="who">
            <Live />
            <span>
              {me.username}{' '}
              <span className="muted">({me.role === 'admin' ? 'administrator' : 'viewer, read-only'})</span>
            </span>
            <Button
              className="button small"
              onPress={async () => {
                try {
                  await api.delete('/session');
                  signedOut(qc);
                } catch (err) {
                  setError(err);
                }
              }}
            >
              Sign out
            </Button>
          </div>
        </header>
        <ErrorNote error={error} />
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </LiveProvider>
    </MeProvider>
  );
}
