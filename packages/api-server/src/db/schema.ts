/**
 * The one schema definition of the appliance database (00 §4), one file per area under tables/.
 * Migrations in ../../drizzle are generated from it by `pnpm --filter @appliance/api-server
 * db:generate` and never edited after they ship (the generator's output only gets STRICT appended,
 * see tools/add-strict.mjs).
 */
export * from './tables/accounts.ts';
export * from './tables/installation.ts';
export * from './tables/shares.ts';
export * from './tables/notifications.ts';
export * from './tables/disks.ts';
export * from './tables/apps.ts';
export * from './tables/jobs.ts';
export * from './tables/parity.ts';
export * from './tables/watchers.ts';
export * from './tables/backups.ts';
export * from './tables/mover.ts';
export * from './tables/updates.ts';
