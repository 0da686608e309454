/**
 * The Node adapters of the ports: the system clock, Node's timers, and host processes read from
 * /proc (a process's identity is its start time, field 22 of /proc/<pid>/stat); the job runner and
 * the scheduler built on them (`hostJobRunner`, `hostScheduler`).
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { Clock, Processes, RunnerPorts, Timers } from '../ports.ts';
import { JobRunner } from '../runner.ts';
import { Scheduler } from '../scheduler.ts';

export const systemClock: Clock = { now: () => new Date(), monotonicMs: () => performance.now() };

export const nodeTimers: Timers = {
  defer: (fn) => void setImmediate(fn),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  every: (ms, fn) => {
    const t = setInterval(fn, ms);
    t.unref();
    return { cancel: () => clearInterval(t) };
  },
};

/**
 * The start time of a process that still runs; null for one that exited, even while it waits to be
 * reaped (a zombie: a killed service's tool is reparented to a PID 1 that may be slow to reap it).
 */
const startTimeOf = (stat: string): string | null => {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return null;
  return fields[19] ?? null;
};

/** The start time of `pid` while it runs (null: gone or a zombie). */
export function processStartTimeSync(pid: number): string | null {
  try {
    return startTimeOf(fsSync.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

export const procProcesses: Processes = {
  startTime: async (pid) => {
    try {
      return startTimeOf(await fs.readFile(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return null;
    }
  },
  startTimeSync: processStartTimeSync,
  signal: (pid, signal) => {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  },
};

// ── the runner and the scheduler on this host ───────────────────────────────────────────────────
// What stays the caller's: the stores, the wall clock its timestamps are read from (the system's by
// default), the events, the log, the ids and the actors' names. A daemon using the package without
// the service builds its runner and scheduler with these, as the service does.

/** The wall clock a host's runner and scheduler read (a service may keep one it can set in tests). */
type WallClock = Pick<Clock, 'now'>;

/** What a host's job runner needs from its caller: the ports but timers, processes and the monotonic clock. */
export type HostRunnerPorts<A> = Omit<RunnerPorts<A>, 'clock' | 'timers' | 'processes'> & {
  clock?: WallClock;
};

/** A job runner on Node's timers and /proc; `clock` gives the wall time (default the system's). */
export function hostJobRunner<A>({ clock = systemClock, ...ports }: HostRunnerPorts<A>): JobRunner<A> {
  return new JobRunner<A>({
    ...ports,
    clock: { now: () => clock.now(), monotonicMs: systemClock.monotonicMs },
    timers: nodeTimers,
    processes: procProcesses,
  });
}

/** A scheduler on Node's timers; `clock` gives the wall time its slots count in (default the system's). */
export function hostScheduler({
  clock = systemClock,
  ...ports
}: Omit<ConstructorParameters<typeof Scheduler>[0], 'timers' | 'clock'> & { clock?: WallClock }): Scheduler {
  return new Scheduler({ ...ports, clock, timers: nodeTimers });
}
