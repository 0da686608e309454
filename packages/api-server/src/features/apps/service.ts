/** One Installer per server context, wired to the real adapters. */
import {
  createCatalog,
  createComposeTool,
  createDockerEngine,
  engineSocket,
  Installer,
  toolEnvironment,
  type DockerEngine,
} from '@appliance/template-installer';
import type { AppContext } from '../../context.ts';
import { shares } from '../../db/schema.ts';
import { createSqliteStackStore, readCatalogSources } from './store.ts';

const installers = new WeakMap<AppContext, Installer>();

/** The Engine named by the daemon's DOCKER_HOST (read at each call, so a test may point it elsewhere). */
function lazyEngine(): DockerEngine {
  const engine = () => createDockerEngine({ socketPath: engineSocket(process.env['DOCKER_HOST']) });
  return {
    containers: () => engine().containers(),
    portBindings: (id) => engine().portBindings(id),
    networks: () => engine().networks(),
  };
}

export function catalogFor(ctx: AppContext) {
  return createCatalog({ catalogDir: ctx.paths.catalogDir, sources: async () => readCatalogSources(ctx) });
}

export function installerFor(ctx: AppContext): Installer {
  let installer = installers.get(ctx);
  if (installer) return installer;
  installer = new Installer({
    paths: ctx.paths,
    clock: ctx.clock,
    catalog: catalogFor(ctx),
    stacks: createSqliteStackStore(ctx),
    locks: ctx.locks,
    compose: createComposeTool(ctx.runner, process.env),
    engine: lazyEngine(),
    environ: toolEnvironment(process.env),
    shares: async () =>
      ctx.db
        .select({ name: shares.name })
        .from(shares)
        .all()
        .map((s) => s.name),
    random: (n) => ctx.random.bytes(n),
  });
  installers.set(ctx, installer);
  return installer;
}
