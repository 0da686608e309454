/**
 * Coalesced runs (06 §5.3): at most one run is in progress and at most one is queued. Every request
 * joins the queued run (one that has not started yet), creating it when there is none; a queued run
 * starts once nothing runs, one `defer` later. So every caller gets the result of a run that started
 * after its request, and the requests of one event-loop turn (e.g. every request of one group commit)
 * share one run.
 */
export interface Coalescer<T> {
  request(): Promise<T>;
  /** Settles when nothing is running or queued (for shutdown and tests). */
  idle(): Promise<void>;
}

export interface CoalescerOptions {
  /** Schedules the start of a queued run; default `setImmediate` (after this turn's callbacks). */
  defer?: (start: () => void) => void;
}

export function createCoalescer<T>(run: () => Promise<T>, options: CoalescerOptions = {}): Coalescer<T> {
  const defer = options.defer ?? ((start: () => void) => void setImmediate(start));
  let running: Promise<T> | null = null;
  let queued: Promise<T> | null = null;
  const ignore = (): void => undefined;

  const start = (): Promise<T> => {
    queued = null;
    const p = (async () => run())();
    running = p;
    const clear = (): void => {
      if (running === p) running = null;
    };
    p.then(clear, clear);
    return p;
  };

  return {
    request() {
      if (queued) return queued;
      const current = running;
      queued = new Promise<void>((resolve) => {
        if (current) current.then(ignore, ignore).then(() => defer(resolve));
        else defer(resolve);
      }).then(start);
      return queued;
    },
    async idle() {
      while (running || queued) await (queued ?? running)?.then(ignore, ignore);
    },
  };
}
