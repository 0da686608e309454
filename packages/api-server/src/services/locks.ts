import type { AppError } from '@appliance/common';

/**
 * Named in-process locks. `tryRun` refuses at once when the key is held (per-device locks answer
 * `409 disk_busy`); `run` waits its turn (the install lock runs installs one at a time).
 */
export class KeyedLocks {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly held = new Set<string>();

  isHeld(key: string): boolean {
    return this.held.has(key);
  }

  async tryRun<T>(keys: string | string[], busy: () => AppError, fn: () => Promise<T>): Promise<T> {
    const list = [...new Set(Array.isArray(keys) ? keys : [keys])].sort();
    if (list.some((k) => this.held.has(k))) throw busy();
    for (const k of list) this.held.add(k);
    try {
      return await fn();
    } finally {
      for (const k of list) this.held.delete(k);
    }
  }

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const next = new Promise<void>((r) => {
      release = r;
    });
    const tail = prev.then(() => next);
    this.tails.set(key, tail);
    await prev;
    this.held.add(key);
    try {
      return await fn();
    } finally {
      this.held.delete(key);
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
