/**
 * Replaceable timers, in the style of TanStack Query's `timeoutManager` providers: the worker never
 * calls the global timer functions itself, so tests drive it with a manual provider.
 */
export interface TimeoutProvider<Handle = unknown> {
  setTimeout(callback: () => void, delayMs: number): Handle;
  clearTimeout(handle: Handle | undefined): void;
}

export const defaultTimeoutProvider: TimeoutProvider<ReturnType<typeof setTimeout>> = {
  setTimeout: (callback, delayMs) => {
    const handle = setTimeout(callback, delayMs);
    // A background worker must not keep the process alive on its own.
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle),
};

/** A provider whose time only moves when the test says so. */
export function manualTimeoutProvider() {
  let now = 0;
  let nextId = 1;
  const pending = new Map<number, { at: number; callback: () => void }>();
  return {
    setTimeout(callback: () => void, delayMs: number): number {
      const id = nextId++;
      pending.set(id, { at: now + Math.max(0, delayMs), callback });
      return id;
    },
    clearTimeout(handle: number | undefined): void {
      if (handle !== undefined) pending.delete(handle);
    },
    /** Move time forward, firing due callbacks in order. */
    advance(ms: number): void {
      const target = now + ms;
      for (;;) {
        const due = [...pending.entries()]
          .filter(([, t]) => t.at <= target)
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        pending.delete(due[0]);
        now = due[1].at;
        due[1].callback();
      }
      now = target;
    },
    get scheduled(): number {
      return pending.size;
    },
  };
}
