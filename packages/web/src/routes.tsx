import type { RouteObject } from 'react-router';
import { Dashboard } from './pages/Dashboard.tsx';
import { DiskWizard } from './pages/DiskWizard.tsx';
import { Disks, SmartDetails } from './pages/Disks.tsx';
import { JobDetail, Jobs } from './pages/Jobs.tsx';
import { Parity } from './pages/Parity.tsx';

/** The pages of the signed-in shell (part 2 adds its own here). */
export const pages: RouteObject[] = [
  { index: true, element: <Dashboard /> },
  { path: 'disks', element: <Disks /> },
  { path: 'disks/replace', element: <DiskWizard key="replace" kind="replace" /> },
  { path: 'disks/upgrade', element: <DiskWizard key="upgrade" kind="upgrade" /> },
  { path: 'disks/:id/smart', element: <SmartDetails /> },
  { path: 'parity', element: <Parity /> },
  { path: 'jobs', element: <Jobs /> },
  { path: 'jobs/:id', element: <JobDetail /> },
  // part 2: each page its own chunk, loaded when first opened (the first page stays small)
  { path: 'shares', lazy: () => import('./pages/Shares.tsx').then((m) => ({ Component: m.Shares })) },
  {
    path: 'shares/:name',
    lazy: () => import('./pages/Shares.tsx').then((m) => ({ Component: m.ShareDetail })),
  },
  { path: 'apps', lazy: () => import('./pages/Apps.tsx').then((m) => ({ Component: m.Apps })) },
  {
    path: 'apps/catalog',
    lazy: () => import('./pages/Catalog.tsx').then((m) => ({ Component: m.Catalog })),
  },
  {
    path: 'apps/install/:id',
    lazy: () => import('./pages/Catalog.tsx').then((m) => ({ Component: m.InstallTemplate })),
  },
  { path: 'apps/:name', lazy: () => import('./pages/Apps.tsx').then((m) => ({ Component: m.AppDetail })) },
  {
    path: 'notifications',
    lazy: () => import('./pages/Notifications.tsx').then((m) => ({ Component: m.Notifications })),
  },
  {
    path: 'external-disks',
    lazy: () => import('./pages/ExternalDisks.tsx').then((m) => ({ Component: m.ExternalDisks })),
  },
  { path: 'backups', lazy: () => import('./pages/Backups.tsx').then((m) => ({ Component: m.Backups })) },
  { path: 'settings', lazy: () => import('./pages/Settings.tsx').then((m) => ({ Component: m.Settings })) },
  {
    path: 'configuration',
    lazy: () => import('./pages/Configuration.tsx').then((m) => ({ Component: m.Configuration })),
  },
  { path: 'mover', lazy: () => import('./pages/Mover.tsx').then((m) => ({ Component: m.Mover })) },
  { path: 'updates', lazy: () => import('./pages/Updates.tsx').then((m) => ({ Component: m.Updates })) },
  { path: 'audit', lazy: () => import('./pages/Audit.tsx').then((m) => ({ Component: m.Audit })) },
  { path: 'users', lazy: () => import('./pages/Users.tsx').then((m) => ({ Component: m.Users })) },
  {
    path: 'users/:id/permissions',
    lazy: () => import('./pages/UserPermissions.tsx').then((m) => ({ Component: m.UserPermissions })),
  },
  {
    path: 'disks/removal',
    lazy: () => import('./pages/DiskRemoval.tsx').then((m) => ({ Component: m.DiskRemoval })),
  },
  { path: '*', element: <NotFound /> },
];

function NotFound() {
  return (
    <section className="page">
      <h1>Not found</h1>
      <p>There is no such page. Use the navigation above.</p>
    </section>
  );
}
