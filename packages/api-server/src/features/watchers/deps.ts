/**
 * The ports of `@appliance/watchers`, wired to the server: the array's slots, the settings and the
 * SMART history from SQLite, the host (paths, inventory, command runner), the mountpoint guard of
 * the disks feature, the generated files the service recorded, its TLS certificate, its stacks and
 * the Docker Engine of DOCKER_HOST (read at each cycle, as the apps feature does).
 */
import {
  createDockerProbe,
  type LastSmart,
  type SmartReportPorts,
  servedCertificate,
  type WatcherFactsPorts,
  type WatcherSettingsPorts,
} from '@appliance/watchers';
import { engineSocket } from '@appliance/template-installer';
import { isLoopback } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { Actor } from '../../services/audit.ts';
import { stackRows } from '../apps/store.ts';
import { guardSlots } from '../disks/deps.ts';
import { auditedWrite } from '../ports.ts';
import { listSlots } from '../disks/store.ts';
import { createSmartHistory, readWatcherSettings, smartHistoryOf, writeWatcherSettings } from './store.ts';

/** The last SMART reading of each disk (by disk key), for GET /disks/:id/smart. */
const lastByContext = new WeakMap<AppContext, Map<string, LastSmart>>();
export function lastReadings(ctx: AppContext): Map<string, LastSmart> {
  let m = lastByContext.get(ctx);
  if (!m) {
    m = new Map();
    lastByContext.set(ctx, m);
  }
  return m;
}

/** Whether this installation has a certificate to watch: a configured one, or an HTTPS listener. */
export function watchesCertificate(ctx: AppContext): boolean {
  const { config } = ctx;
  const https =
    config.listen !== null &&
    (config.tls === 'on' || (config.tls === 'auto' && !isLoopback(config.listen.host)));
  return config.tlsCert !== null || https;
}

export const upsConfigured = (ctx: AppContext) => readWatcherSettings(ctx.db).ups !== null;

/** What the watchers and the SMART report both read: the slots, the settings, the last readings. */
const arrayFacts = (ctx: AppContext) => ({
  slots: () => listSlots(ctx.db),
  settings: () => readWatcherSettings(ctx.db),
  smartLast: lastReadings(ctx),
});

export function watcherPorts(ctx: AppContext): WatcherFactsPorts {
  return {
    ...arrayFacts(ctx),
    paths: ctx.paths,
    inventory: ctx.inventory,
    runner: ctx.runner,
    clock: ctx.clock,
    logger: ctx.logger,
    guardSlots: () => guardSlots(ctx),
    smartHistory: createSmartHistory(ctx),
    generatedFiles: () => ctx.generated.list(),
    certificateFile: () => servedCertificate(ctx.config.tlsCert, ctx.paths.etcDir),
    watchesCertificate: () => watchesCertificate(ctx),
    stackNames: () => new Set(stackRows(ctx.db).map((r) => r.name)),
    docker: () => createDockerProbe({ socketPath: engineSocket(process.env['DOCKER_HOST']) }),
  };
}

/** The SMART report's ports: the inventory, the slots, the settings, the last readings, the history. */
export function smartReportPorts(ctx: AppContext): SmartReportPorts {
  return {
    inventory: ctx.inventory,
    ...arrayFacts(ctx),
    smartHistoryOf: (diskKey, limit) => smartHistoryOf(ctx.db, diskKey, limit),
  };
}

/** The settings written with their audit row as `actor`; the context's loops rescheduled. */
export function settingsPorts(ctx: AppContext, actor: Actor | null): WatcherSettingsPorts {
  return {
    save: (settings, audit) =>
      auditedWrite(ctx, actor)((db) => {
        writeWatcherSettings(db, settings, ctx.clock.now().toISOString());
        return readWatcherSettings(db);
      }, audit),
    reschedule: () => ctx.watchers.reschedule(),
  };
}
