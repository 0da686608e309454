/**
 * In-memory ports for the mover job (tests, or a host without the server): disks given as real
 * directories, present unless listed missing; events and log lines kept in arrays.
 */
import { createCommandRunner } from '@appliance/common';
import type { JobView } from '@appliance/jobs';
import type { MoverResult } from './core/report.ts';
import type { MoverRunParams } from './job.ts';
import type { MoverShare } from './node/mover.ts';
import type { MoverDisk, MoverJobDeps, MoverScheduleDeps, MoverSettings } from './ports.ts';
import type { MoverServicePorts, MoverShareRow, MoverSlot } from './operations.ts';
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

/** In-memory ports of the mover's API operations: slots, shares, settings, audit rows and a job list. */
export interface MemoryMoverService extends MoverServicePorts<string> {
  current: MoverSettings;
  slotRows: MoverSlot[];
  shareRows: MoverShareRow[];
  audits: { operation: string; target: string; details: Record<string, unknown> }[];
  /** Jobs as the runner would show them; `start` appends a running one. */
  views: JobView<MoverRunParams, MoverResult>[];
  started: { params: MoverRunParams; target: string; actor: string }[];
}

export function memoryMoverService(): MemoryMoverService {
  const ports: MemoryMoverService = {
    current: { ...DEFAULT_MOVER_SETTINGS },
    slotRows: [],
    shareRows: [],
    audits: [],
    views: [],
    started: [],
    actor: 'admin',
    slots: () => ports.slotRows,
    shares: () => ports.shareRows,
    settings: () => ({ ...ports.current }),
    writeSettings: async (fn) => {
      let next = ports.current;
      const audits: MemoryMoverService['audits'] = [];
      fn({
        read: () => ({ ...ports.current }),
        write: (s) => (next = { ...s }),
        audit: (e) => audits.push(e),
      });
      ports.current = next;
      ports.audits.push(...audits);
    },
    nextRun: () => null,
    jobs: {
      runningOf: () => ports.views.filter((v) => v.state === 'running'),
      latest: (_kind, states) => [...ports.views].reverse().find((v) => states.includes(v.state)) ?? null,
      start: async (kind, params, options) => {
        ports.started.push({ params, target: options.target, actor: options.actor });
        const view = { id: `job-${ports.started.length}`, type: kind.type, state: 'running' } as JobView<
          MoverRunParams,
          MoverResult
        >;
        return { view };
      },
    },
  };
  return ports;
}
