export { loadConfig, type Config, type ConfigFlags, ConfigError } from './config.ts';
export { startServer, StartupError, VERSION, type RunningServer, type StartOptions } from './server.ts';
export type { AppContext, Hooks } from './context.ts';
export { openDatabase, schemaVersion, migrationJournal, MIGRATIONS_DIR, type Db } from './db/open.ts';
export * as schema from './db/schema.ts';
export { createSealer, machineKeyCheck } from './db/machine-key.ts';
