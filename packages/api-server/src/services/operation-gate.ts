import { AppError } from '@appliance/common';

/**
 * The import lock (08 §14), in one place: the route framework enters the gate around every
 * request that is not a plain read (every write and long operation), so
 *
 * - while an import runs, every other write answers `409 import_in_progress` before it starts;
 * - an import starts only when no write or long operation is running (`409 operations_running`).
 *
 * Single-threaded: checking and entering happen in one synchronous call, so nothing slips in
 * between. Work that outlives its request (an export's stream) holds the gate with `enter` until
 * it ends.
 */
export class OperationGate {
  private running = 0;
  private importing = false;

  /** Enters for one write or long operation; throws `409 import_in_progress` during an import. */
  enter(): () => void {
    if (this.importing) throw importInProgress();
    this.running += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.running -= 1;
    };
  }

  /** Takes the import lock: a release function, or null when anything else runs. */
  tryImport(): (() => void) | null {
    if (this.importing || this.running > 0) return null;
    this.importing = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.importing = false;
    };
  }

  get importRunning(): boolean {
    return this.importing;
  }

  get operations(): number {
    return this.running;
  }
}

export const importInProgress = (): AppError =>
  new AppError(
    409,
    'import_in_progress',
    'A configuration import is running; every change waits until it has finished. Try again in a moment.',
  );
