/** The ports of `@appliance/updates`, wired to the server's context. */
import fs from 'node:fs';
import path from 'node:path';
import { writeConfigArchive } from '@appliance/archive-preview';
import {
  type AptDeps,
  type RebootSchedulePorts,
  rebootPaths,
  type UpdateJobPorts,
  type UpdatePorts,
} from '@appliance/updates';
import { decide } from '@appliance/watchers';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { exportDeps } from '../config-archive/deps.ts';
import { readUpdatesState, writeUpdatesState } from './store.ts';

/**
 * apt's ports. On the real host booted with systemd, apt runs in a transient unit (outside the
 * service's sandbox and control group: see `AptDeps.transientUnit`); in a sandbox as a child.
 */
export function aptDeps(ctx: AppContext): AptDeps {
  return {
    runner: ctx.runner,
    aptConfig: ctx.config.updates?.aptConfig ?? null,
    transientUnit: ctx.config.root === '' && fs.existsSync('/run/systemd/system'),
  };
}

/** Whether apt exists where the service looks for its tools (a Debian box): the update events can come. */
export function aptAvailable(ctx: AppContext): boolean {
  return ctx.config.toolPath.split(':').some((dir) => fs.existsSync(path.join(dir, 'apt-get')));
}

/** `/run/reboot-required`, /boot and the running kernel under the host root of the configuration. */
export const hostRebootPaths = (ctx: AppContext) => rebootPaths(ctx.config.hostRoot);

export function updatePorts(ctx: AppContext, appVersion: string): UpdatePorts {
  return {
    apt: aptDeps(ctx),
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
      await ctx.conditions.apply('updates', decide(observation, ctx.conditions.holding(owns), owns));
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
    aptInstalled: () => aptAvailable(ctx),
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
    write: (schedule, audit) =>
      ctx.writes.run((db) => {
        writeUpdatesState(db, schedule);
        ctx.audit.record(db, actor, audit);
      }),
  };
}
