/**
 * The ports several features' `deps.ts` build the same way from the context, built once here: the
 * notification path (raise an event, hold a condition), the job runner as one request's actor
 * starts jobs on it, the write job that carries its audit row, the host bundle (runner, clock,
 * log) and the settings' time zone a schedule counts in. Each is the server's wiring only: what a
 * port does is its package's.
 */
import type { JobKind, StartOptions } from '@appliance/jobs';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/open.ts';
import type { RunOptions } from '../db/write-queue.ts';
import type { Actor, AuditEntry } from '../services/audit.ts';
import { readSettings } from './settings/index.ts';

/** An event of the notification path (`hooks.raise`). */
type RaisedEvent = Parameters<NonNullable<AppContext['hooks']['raise']>>[0];

/** Raises an event now; without the notifications feature (no `hooks.raise`), nothing happens. */
export const raiseEvent =
  (ctx: AppContext) =>
  async (event: RaisedEvent): Promise<void> => {
    await ctx.hooks.raise?.(event);
  };

/**
 * The events port of a job: `raise` now, or `hold` a condition (raised once while it holds) on the
 * context's conditions, recorded as held by `source`.
 */
export const eventPorts = (ctx: AppContext, source: string) => ({
  raise: raiseEvent(ctx),
  hold: async (key: string, event: RaisedEvent): Promise<void> => {
    await ctx.conditions.hold(key, event, source);
  },
});

/** The job runner as one request of `actor` uses it: every start is audited as that actor. */
export const actorJobs = (ctx: AppContext, actor: Actor | null) => ({
  start: <P, R>(kind: JobKind<P, R>, params: P, options: Omit<StartOptions<Actor>, 'actor'>) =>
    ctx.jobs.start(kind, params, { ...options, actor }),
  runningOf: <P, R>(kind: JobKind<P, R>) => ctx.jobs.runningOf(kind),
  assertFree: (groups: readonly string[]) => ctx.jobs.assertFree(groups),
});

/**
 * A write and the audit row of `actor` in the SAME write job (both commit, or neither); resolves
 * with what `write` returned.
 */
export const auditedWrite =
  (ctx: AppContext, actor: Actor | null) =>
  <T>(write: (db: Db) => T, entry: AuditEntry): Promise<T> =>
    ctx.writes.run((db) => {
      const result = write(db);
      ctx.audit.record(db, actor, entry);
      return result;
    });

/**
 * A transaction port: one write job over `port(db)` (the store on the write job's handle), with
 * `audit(entry)` recording a row of `actor` in the same job; `options` as the write queue's.
 */
export const auditedTransaction =
  <W extends object>(ctx: AppContext, actor: Actor | null, port: (db: Db) => W) =>
  <T>(fn: (tx: W & { audit(entry: AuditEntry): number }) => T, options?: RunOptions<T>): Promise<T> =>
    ctx.writes.run(
      (db) => fn({ ...port(db), audit: (entry) => ctx.audit.record(db, actor, entry) }),
      options,
    );

/** An audit row of `actor` alone, in its own write job. */
export const auditRecorder =
  (ctx: AppContext, actor: Actor | null) =>
  async (entry: AuditEntry): Promise<void> => {
    await ctx.writes.run((db) => ctx.audit.record(db, actor, entry));
  };

/** The host bundle the packages' jobs run on: the command runner, the clock, the log. */
export const hostTools = (ctx: AppContext) => ({ runner: ctx.runner, clock: ctx.clock, log: ctx.logger });

/** The settings' time zone (read at each call: a PUT /settings takes effect at the next one). */
export const settingsTimeZone = (ctx: AppContext) => (): string => readSettings(ctx.db).timezone;

/** Whether the array's disks are plain directories: on a sandbox (a root prefix) outside lab mode. */
export const plainDirectories = (ctx: AppContext): boolean =>
  ctx.paths.root !== '' && !ctx.config.lab.enabled;
