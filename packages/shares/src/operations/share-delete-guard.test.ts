import { isRefusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { ShareDeleteGuard, shareBusyKey, type TryLocks } from './share-delete-guard.ts';

const refusalCode = (err: unknown) => (isRefusal(err) ? err.code : String(err));

/** Try-only locks in memory: a held key refuses at once with `busy()`. */
function memoryLocks(): TryLocks & { held: Set<string> } {
  const held = new Set<string>();
  return {
    held,
    async tryRun(key, busy, fn) {
      if (held.has(key)) throw busy();
      held.add(key);
      try {
        return await fn();
      } finally {
        held.delete(key);
      }
    },
  };
}

describe('ShareDeleteGuard', () => {
  it('marks a running data delete and refuses a second delete of the same share (any case)', async () => {
    const guard = new ShareDeleteGuard(memoryLocks());
    let release!: () => void;
    const first = guard.whileDeleting('Media', () => new Promise<void>((r) => (release = r)));
    expect(guard.running('media')).toBe(true);
    expect(guard.running('Photos')).toBe(false);
    const second = await guard.whileDeleting('MEDIA', async () => undefined).catch((e: unknown) => e);
    expect(refusalCode(second)).toBe('share_busy');
    release();
    await first;
    expect(guard.running('media')).toBe(false);
  });

  it('refuses while a definition delete holds the share key, without marking a data delete', async () => {
    const locks = memoryLocks();
    locks.held.add(shareBusyKey('Media'));
    const guard = new ShareDeleteGuard(locks);
    const err = await guard.whileDeleting('media', async () => 'ran').catch((e: unknown) => e);
    expect(refusalCode(err)).toBe('share_busy');
    expect(guard.running('media')).toBe(false);
  });

  it('clears the mark when the delete throws, and passes its error on', async () => {
    const guard = new ShareDeleteGuard(memoryLocks());
    await expect(
      guard.whileDeleting('media', async () => {
        throw new Error('disk gone');
      }),
    ).rejects.toThrow('disk gone');
    expect(guard.running('media')).toBe(false);
  });

  it('of(locks): one guard per set of locks, so one server sees its own deletes only', async () => {
    const serverA = memoryLocks();
    const serverB = memoryLocks();
    expect(ShareDeleteGuard.of(serverA)).toBe(ShareDeleteGuard.of(serverA));
    expect(ShareDeleteGuard.of(serverB)).not.toBe(ShareDeleteGuard.of(serverA));
    let release!: () => void;
    const running = ShareDeleteGuard.of(serverA).whileDeleting(
      'media',
      () => new Promise<void>((r) => (release = r)),
    );
    expect(ShareDeleteGuard.of(serverA).running('media')).toBe(true);
    expect(ShareDeleteGuard.of(serverB).running('media')).toBe(false);
    release();
    await running;
  });
});
