import { conflict } from '@appliance/common';
import type { GuardedOperation, GuardPorts } from '../operations/guarded.ts';

/**
 * In-memory `GuardPorts`: backup-group holds kept in a set (a label in `busyBackups` refuses with
 * `job_running`, as a running backup would), and every progress event in one list.
 */
export interface MemoryGuard extends GuardPorts {
  /** Labels whose backup group is held now, with what holds it. */
  held: Map<string, GuardedOperation>;
  /** Labels a backup, drill or restore uses (holding them is refused). */
  busyBackups: Set<string>;
  events: {
    operation: string;
    target: string;
    kind: 'update' | 'finish';
    progress: Record<string, unknown>;
  }[];
}

export function memoryGuard(): MemoryGuard {
  const guard: MemoryGuard = {
    held: new Map(),
    busyBackups: new Set(),
    events: [],
    holdBackups(label, what) {
      if (guard.busyBackups.has(label) || guard.held.has(label))
        throw conflict('job_running', `A backup uses the external disk "${label}".`);
      guard.held.set(label, what);
      return () => guard.held.delete(label);
    },
    openProgress: (operation, target) => ({
      update: (progress) => guard.events.push({ operation, target, kind: 'update', progress }),
      finish: (progress) => guard.events.push({ operation, target, kind: 'finish', progress }),
    }),
  };
  return guard;
}
