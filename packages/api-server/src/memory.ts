/**
 * One full, compacting garbage collection shortly after the service has started: start-up leaves
 * garbage behind (the migrations read, modules compiled, the catalog hashed) that V8 keeps resident
 * for hours on an idle appliance. V8's "last resort" collection frees it and gives the pages back
 * (−4 to −5 MiB resident measured, docs/decisions/performance.md). It runs once, about a second
 * after start, and only when the launcher exposed `gc` (bin/appliance-server passes --expose-gc);
 * the sandboxed test servers never run it.
 */
type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export function compactAfterStart(delayMs = 1000): void {
  const gc = (globalThis as { gc?: Gc }).gc;
  if (typeof gc !== 'function') return;
  setTimeout(() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }), delayMs).unref();
}
