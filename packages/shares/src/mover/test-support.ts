/**
 * In-memory ports for the mover job (tests, or a host without the server): disks given as real
 * directories, present unless listed missing; events and log lines kept in arrays.
 */
import { createCommandRunner } from '@appliance/common';
import type { MoverShare } from './node/mover.ts';
import type { MoverDisk, MoverJobDeps, MoverScheduleDeps, MoverSettings } from './ports.ts';
import { DEFAULT_MOVER_SETTINGS } from './ports.ts';

export interface MemoryMoverDeps extends MoverJobDeps {
  raised: { eventType: string; title: string; message: string }[];
  errors: string[];
  /** Mountpoints that read as not mounted. */
  missing: Set<string>;
}

export function memoryMoverDeps(o: {
  cache: MoverDisk | null;
  data: MoverDisk[];
  shares: MoverShare[];
  journalDir: string;
  minFreeBytes?: number;
}): MemoryMoverDeps {
  const deps: MemoryMoverDeps = {
    raised: [],
    errors: [],
    missing: new Set(),
    disks: () => (o.cache ? { cache: o.cache, data: o.data } : null),
    present: async (d) => !deps.missing.has(d.mountpoint),
    shares: () => o.shares,
    minFreeBytes: () => o.minFreeBytes ?? 0,
    journalDir: () => o.journalDir,
    procDir: '/proc',
    runner: createCommandRunner(),
    raise: async (event) => {
      deps.raised.push(event);
    },
    log: { error: (message) => deps.errors.push(message) },
  };
  return deps;
}

export interface MemoryScheduleDeps extends MoverScheduleDeps {
  current: MoverSettings;
  since: Date | null;
  cache: boolean;
  started: { type: string; params: unknown; trigger: string }[];
}

export function memoryScheduleDeps(): MemoryScheduleDeps {
  const deps: MemoryScheduleDeps = {
    current: { ...DEFAULT_MOVER_SETTINGS },
    since: null,
    cache: true,
    started: [],
    settings: () => deps.current,
    arraySince: () => deps.since,
    hasCache: () => deps.cache,
    timeZone: () => 'UTC',
    jobs: {
      start: async (kind, params, options) => {
        deps.started.push({ type: kind.type, params, trigger: options.trigger });
        return { view: { id: `job-${deps.started.length}` } };
      },
    },
  };
  return deps;
}
