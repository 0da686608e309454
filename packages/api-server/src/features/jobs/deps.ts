/**
 * The ports of `@appliance/jobs`, wired to the server: the SQLite stores, the service's clock for
 * timestamps, the event bus, the import gate and the audit log's actor; the conditions on their
 * table. Node's timers, /proc for a leftover tool and the monotonic clock (throttling, ETAs) are
 * the package's host runner's (`@appliance/jobs/node`).
 */
import { actorName } from '@appliance/common';
import { Conditions, type JobRunner, raiseWithinOrAfter, type Scheduler } from '@appliance/jobs';
import { hostJobRunner, hostScheduler } from '@appliance/jobs/node';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/open.ts';
import type { Actor } from '../../services/audit.ts';
import { createConditionStore } from './conditions-store.ts';
import { createJobStore, createScheduleStore } from './store.ts';

/** The service's job runner: `ctx.jobs`. */
export function createJobRunner(ctx: AppContext): JobRunner<Actor> {
  return hostJobRunner<Actor>({
    store: createJobStore(ctx),
    clock: { now: () => ctx.clock.now() },
    events: ctx.events,
    logger: ctx.logger,
    gate: ctx.gate,
    newId: () => ctx.random.uuid(),
    actorName,
  });
}

/** The in-service scheduler: `ctx.scheduler`, on the service's clock. */
export function createScheduler(ctx: AppContext): Scheduler {
  return hostScheduler({ store: createScheduleStore(ctx), clock: ctx.clock, logger: ctx.logger });
}

/**
 * The raise-once conditions (`ctx.conditions`) on `watcher_conditions`: an onset's alert is raised
 * by the notifications feature inside the same write job (`hooks.raiseWithin`) and announced after
 * the commit; without it (no notifications feature), raised after the commit (`hooks.raise`).
 */
export function createConditions(ctx: AppContext): Conditions<Db> {
  return new Conditions<Db>({
    store: createConditionStore(ctx),
    events: raiseWithinOrAfter<Db>({
      within: () => ctx.hooks.raiseWithin,
      after: (event) => ctx.hooks.raise?.(event),
    }),
    clock: ctx.clock,
    logger: ctx.logger,
  });
}
