/**
 * Puts a slot wholly on one disk (a `Settlement` of the core): the other disk of the job is
 * unmounted from every path the job uses, and the kept disk is mounted read-write at its
 * mountpoint when it is attached. Used after a restart (recovery), and when a job is cancelled
 * or fails before its switch (the slot keeps its old disk). Idempotent: running it twice changes
 * nothing more.
 */
import fs from 'node:fs/promises';
import type { CommandRunner, DiskInventory, HostPaths } from '@appliance/common';
import type { Settlement } from '../core/disk-job.ts';
import { mountByUuid, mountedReadOnly, remount, unmount } from './disk-tools.ts';
import { readMounts } from './pool-state.ts';

export interface SettleResult {
  /** Whether the kept disk is attached and mounted read-write at its mountpoint now. */
  kept: boolean;
  /** Real targets this call unmounted. */
  unmounted: string[];
}

const sameFile = async (a: string, b: string) => {
  const [x, y] = await Promise.all([fs.realpath(a).catch(() => a), fs.realpath(b).catch(() => b)]);
  return x === y;
};

export async function settleSlot(
  runner: CommandRunner,
  paths: HostPaths,
  inventory: DiskInventory,
  s: Settlement,
): Promise<SettleResult> {
  const device = (uuid: string) => inventory.disks.find((d) => d.fsUuid === uuid)?.fsDevice ?? null;
  const keepDevice = device(s.keep.fsUuid);
  const keepAt = paths.real(s.keep.at);
  const unmounted: string[] = [];
  const top = async (target: string) => (await readMounts(paths)).filter((m) => m.target === target).at(-1);

  // Every path the job uses holds nothing but the kept disk, and that only at its own mountpoint.
  for (const logical of s.drop.from) {
    const target = paths.real(logical);
    for (let i = 0; i < 8; i++) {
      const m = await top(target);
      if (!m) break;
      if (target === keepAt && keepDevice !== null && (await sameFile(m.source, keepDevice))) break;
      await unmount(runner, target, { busyWaitMs: 5_000, lazy: true });
      unmounted.push(target);
    }
  }
  if (keepDevice === null) return { kept: false, unmounted };

  const m = await top(keepAt);
  if (m && (await sameFile(m.source, keepDevice))) {
    if ((await mountedReadOnly(runner, keepAt)) === true) await remount(runner, keepAt, 'rw');
  } else {
    await mountByUuid(runner, paths, { uuid: s.keep.fsUuid, logical: s.keep.at, device: keepDevice });
  }
  return { kept: true, unmounted };
}
