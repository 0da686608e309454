/**
 * The service's wrapping of format, mount and eject over in-memory ports: the backup group is held
 * exactly while the disk lock is, a busy backup refuses before anything runs, and progress opens
 * only at the first step (a refused format publishes nothing).
 */
import { AppError, type CommandRunner, type Clock } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { TryLocks } from '../keyed-lock.ts';
import { inventory } from '../test-support/fixtures.ts';
import { memoryGuard } from '../test-support/memory-guard.ts';
import { MemoryStore } from '../test-support/memory-store.ts';
import {
  FORMAT_OPERATION,
  formatExternalGuarded,
  holdingBackups,
  lazyProgress,
  MOUNT_OPERATION,
  mountExternalGuarded,
} from './guarded.ts';

const busy = () => new AppError(409, 'disk_busy', 'busy');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const noRunner: CommandRunner = {
  resolve: async () => null,
  run: async () => {
    throw new Error('no command may run');
  },
} as unknown as CommandRunner;

describe('holdingBackups', () => {
  it('holds the backup group inside the disk lock and releases it after, also after a failure', async () => {
    const guard = memoryGuard();
    const locks = holdingBackups(new TryLocks(), guard.holdBackups, 'usb1', MOUNT_OPERATION);
    const seen = await locks.tryRun('k', busy, async () => guard.held.get('usb1'));
    expect(seen).toEqual(MOUNT_OPERATION);
    expect(guard.held.size).toBe(0);
    await expect(
      locks.tryRun('k', busy, async () => {
        throw new Error('mount failed');
      }),
    ).rejects.toThrow('mount failed');
    expect(guard.held.size).toBe(0);
  });

  it('a backup using the disk refuses (job_running) and the operation does not run', async () => {
    const guard = memoryGuard();
    guard.busyBackups.add('usb1');
    let ran = false;
    const locks = holdingBackups(new TryLocks(), guard.holdBackups, 'usb1', FORMAT_OPERATION);
    const err = await locks
      .tryRun('k', busy, async () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expect((err as AppError).code).toBe('job_running');
    expect(ran).toBe(false);
  });

  it('a disk lock already held answers disk_busy before the backup group is touched', async () => {
    const guard = memoryGuard();
    const inner = new TryLocks();
    const locks = holdingBackups(inner, guard.holdBackups, 'usb1', FORMAT_OPERATION);
    const err = await inner
      .tryRun('k', busy, () => locks.tryRun('k', busy, async () => undefined))
      .catch((e: unknown) => e);
    expect((err as AppError).code).toBe('disk_busy');
    expect(guard.held.size).toBe(0);
  });
});

describe('lazyProgress', () => {
  it('opens at the first update; the finish repeats the last step as done', () => {
    const guard = memoryGuard();
    let opened = 0;
    const p = lazyProgress(() => {
      opened++;
      return guard.openProgress('disks.external.format', 'usb1');
    });
    p.finish(false);
    expect([opened, guard.events]).toEqual([0, []]);
    p.update({ step: 'wipefs', stepIndex: 1, steps: 3 });
    p.update({ step: 'mkfs', stepIndex: 2, steps: 3 });
    p.finish(true);
    expect(opened).toBe(1);
    expect(guard.events.at(-1)?.progress).toEqual({ step: 'mkfs', stepIndex: 3, steps: 3, ok: true });
  });
});

describe('formatExternalGuarded / mountExternalGuarded', () => {
  const deps = () => {
    const guard = memoryGuard();
    const store = new MemoryStore();
    const clock: Clock = { now: () => new Date('2026-01-01T00:00:00Z') } as Clock;
    return {
      guard,
      store,
      deps: {
        ...guard,
        inventory: { read: async () => inventory([]) },
        store,
        runner: noRunner,
        locks: new TryLocks(),
        clock,
        log: quiet,
        realpath: async (p: string) => p,
        mountRoot: '/nonexistent',
        sysClassBlock: '/nonexistent',
      },
    };
  };

  it('a refused format publishes no progress, holds nothing and writes nothing', async () => {
    const { guard, store, deps: d } = deps();
    const err = await formatExternalGuarded(d, { label: 'bad label' }).catch((e: unknown) => e);
    expect((err as AppError).code).toBe('bad_request');
    expect([guard.events, guard.held.size, store.rows, store.audit]).toEqual([[], 0, [], []]);
  });

  it('a mount of an unknown label is refused, with nothing held afterwards', async () => {
    const { guard, deps: d } = deps();
    const err = await mountExternalGuarded(d, 'usb1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(guard.held.size).toBe(0);
  });
});
