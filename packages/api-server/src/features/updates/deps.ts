/** The ports of `@appliance/updates`, wired to the server's context. */
import { writeConfigArchive } from '@appliance/archive-preview';
import {
  aptOnPath,
  hostAptDeps,
  type RebootSchedulePorts,
  rebootPaths,
  type UpdateJobPorts,
  type UpdatePorts,
  type UpdatesStatusPorts,
} from '@appliance/updates';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { exportDeps } from '../config-archive/deps.ts';
import { auditedWrite } from '../ports.ts';
import { readUpdatesState, writeUpdatesState } from './store.ts';

/** `/run/reboot-required`, /boot and the running kernel under the host root of the configuration. */
export const hostRebootPaths = (ctx: AppContext) => rebootPaths(ctx.config.hostRoot);

export function updatePorts(ctx: AppContext, appVersion: string): UpdatePorts {
  return {
    apt: hostAptDeps({
      runner: ctx.runner,
      aptConfig: ctx.config.updates?.aptConfig ?? null,
      sandbox: ctx.config.root !== '',
    }),
    clock: ctx.clock,
    writeArchive: () => writeConfigArchive(ctx.paths, exportDeps(ctx, appVersion), 'pre-update'),
    recordCheck: (check) =>
      ctx.writes.run((db) =>
        writeUpdatesState(db, {
          checkedAt: check.checkedAt,
          upgradable: check.packages,
          checkError: check.error,
        }),
      ),
    report: async (owns, observation) => {
      await ctx.conditions.observe('updates', observation, owns);
    },
    hold: async (c) => {
      await ctx.conditions.hold(c.key, c, 'updates');
    },
    clear: async (key) => {
      await ctx.conditions.clear(key);
    },
  };
}

/** The ports of the update jobs and schedules. */
export function updateJobPorts(ctx: AppContext, appVersion: string): UpdateJobPorts {
  return {
    // built per use: the clock, the configuration and the archive's version as they are then
    get updates() {
      return updatePorts(ctx, appVersion);
    },
    runner: ctx.runner,
    sandbox: ctx.config.root !== '',
    aptInstalled: () => aptOnPath(ctx.config.toolPath),
    rebootAt: () => readUpdatesState(ctx.db).rebootAt,
    clearReboot: () => ctx.writes.run((db) => writeUpdatesState(db, { rebootAt: null, rebootBy: null })),
    startScheduled: async (kind, params, target) =>
      (await ctx.jobs.start(kind, params, { target, actor: null, trigger: 'schedule' })).view.id,
    afterApply: async () => {
      await ctx.watchers.runOnce('reboot');
    },
  };
}

/** The scheduled reboot's row, written with its audit row as `actor`. */
export function rebootSchedulePorts(ctx: AppContext, actor: Actor | null): RebootSchedulePorts {
  return {
    clock: ctx.clock,
    read: () => readUpdatesState(ctx.db),
    write: (schedule, audit) => auditedWrite(ctx, actor)((db) => writeUpdatesState(db, schedule), audit),
  };
}

/** `GET /updates`'s ports: the stored check, the runner's jobs, the scheduler's next check. */
export function statusPorts(ctx: AppContext): UpdatesStatusPorts {
  return {
    state: () => readUpdatesState(ctx.db),
    jobs: ctx.jobs,
    nextCheckAt: () => ctx.scheduler.view('updates.check')?.nextDueAt ?? null,
  };
}
