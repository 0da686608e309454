/** The apps feature's start: the built-in source row and catalog, and stacks a crash left pending undone. */
import type { HostPaths } from '@appliance/common';
import { syncBuiltinCatalog } from '../node/catalog.ts';
import { undoPendingStacks } from '../node/installer.ts';
import type { StackStore } from '../node/stack-store.ts';

export interface AppsStartPorts {
  paths: HostPaths;
  stacks: StackStore;
  /** Seeds the `builtin` source row (position 0) when absent. */
  seedBuiltinSource(): Promise<void>;
  log: { info(message: string, fields?: Record<string, unknown>): void };
}

export async function startApps(ports: AppsStartPorts): Promise<void> {
  await ports.seedBuiltinSource();
  await syncBuiltinCatalog(ports.paths.catalogDir);
  const undone = await undoPendingStacks(ports.paths, ports.stacks);
  if (undone.length) ports.log.info('apps: undid stacks left pending by a crash', { stacks: undone });
}
