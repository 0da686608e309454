/**
 * The Node adapters of the ports: the system clock, Node's timers, and host processes read from
 * /proc (a process's identity is its start time, field 22 of /proc/<pid>/stat).
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { Clock, Processes, Timers } from '../ports.ts';

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
