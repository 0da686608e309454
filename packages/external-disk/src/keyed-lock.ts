import type { AppError } from '@appliance/common';
import type { DiskLocks } from './ports.ts';

/**
 * A minimal in-process, try-only lock registry (07 §6.5) for callers that have no shared one.
 * The server passes its own registry instead, so every disk-writing operation shares one.
 */
export class TryLocks implements DiskLocks {
  private readonly held = new Set<string>();

  isHeld(key: string): boolean {
    return this.held.has(key);
  }

  async tryRun<T>(keys: string | string[], busy: () => AppError, fn: () => Promise<T>): Promise<T> {
    const list = [...new Set(Array.isArray(keys) ? keys : [keys])];
    if (list.some((k) => this.held.has(k))) throw busy();
    for (const k of list) this.held.add(k);
    try {
      return await fn();
    } finally {
      for (const k of list) this.held.delete(k);
    }
  }
}

/** Lock keys (07 §6.5): the whole disk's kernel name, and the lower-cased label. */
export { diskLockKey } from '@appliance/common';
export const externalLabelLockKey = (label: string): string => `external-label:${label.toLowerCase()}`;
