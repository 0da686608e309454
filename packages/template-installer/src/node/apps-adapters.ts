/**
 * The real adapters of the apps feature from what a host service already has: one compose tool
 * and the Docker Engine named by the daemon's DOCKER_HOST (read at each call, so a test may point
 * it elsewhere) shared by the stack operations and the installer, and the catalog over the
 * source rows. The api-server builds these once per context (`features/apps/deps.ts`).
 */
import type { Clock, CommandRunner, HostPaths } from '@appliance/common';
import type { RandomBytes } from '../core/plan.ts';
import { type OpenConditions, stackUpdates } from '../operations/conditions.ts';
import { APPDATA_ROOT } from '../operations/ports.ts';
import { createStacksDeps } from '../stacks/node/wiring.ts';
import type { StacksDeps } from '../stacks/ports.ts';
import { type Catalog, type CatalogSourceRow, createCatalog } from './catalog.ts';
import { createComposeTool, toolEnvironment } from './compose-tool.ts';
import { createLazyDockerEngine } from './docker-engine.ts';
import { Installer } from './installer.ts';
import type { Locks, StackStore } from './stack-store.ts';

export interface AppsHost {
  paths: HostPaths;
  clock: Clock;
  runner: CommandRunner;
  locks: Locks;
  stacks: StackStore;
  /** The daemon's environment (DOCKER_HOST, the compose tool's variables). */
  environ: Readonly<Record<string, string | undefined>>;
  /** The catalog source rows. */
  sources(): Promise<CatalogSourceRow[]>;
  /** Share names (path suggestions of an install). */
  shares(): Promise<string[]>;
  /** Open conditions whose key may start with a prefix (a stack's image updates). */
  openConditions: OpenConditions;
  random: RandomBytes;
}

export interface AppsAdapters {
  stacks: StacksDeps;
  installer: Installer;
  catalog: Catalog;
}

export function createAppsAdapters(host: AppsHost): AppsAdapters {
  const tool = createComposeTool(host.runner, host.environ);
  const catalog = createCatalog({ catalogDir: host.paths.catalogDir, sources: host.sources });
  const stacks = createStacksDeps({
    runner: host.runner,
    tool,
    stacks: host.stacks,
    locks: host.locks,
    stacksDir: host.paths.stacksDir,
    appDataRoot: host.paths.real(APPDATA_ROOT),
    environ: () => host.environ,
    updates: (name) => stackUpdates(host.openConditions, name),
    procDir: host.paths.procDir,
  });
  const installer = new Installer({
    paths: host.paths,
    clock: host.clock,
    catalog,
    stacks: host.stacks,
    locks: host.locks,
    compose: tool,
    engine: createLazyDockerEngine(() => host.environ),
    environ: toolEnvironment(host.environ),
    shares: host.shares,
    random: host.random,
  });
  return { stacks, installer, catalog };
}
