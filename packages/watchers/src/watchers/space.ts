/**
 * `pool_above_threshold`, `cache_above_threshold`, `disk_near_minfreespace`: statfs of the pool,
 * the cache and each data disk, only where something is mounted (statfs of an empty mountpoint
 * would measure the root filesystem).
 */
import { minFreeSpaceMiB } from '@appliance/array-planner';
import {
  evaluateSpace,
  type FsUsage,
  type MeasuredDisk,
  SPACE_KEY_PREFIX,
  type SpaceFacts,
} from '../core/space.ts';
import { mountAt, readMountTable } from '../node/mounts.ts';
import { statfsUsage } from '../node/statfs.ts';
import type { WatcherDefinition } from '../runner.ts';
import type { SpacePorts } from './ports.ts';

const MiB = 1024 * 1024;

export async function spaceFacts(ports: Pick<SpacePorts, 'slots' | 'paths'>): Promise<SpaceFacts> {
  const { paths } = ports;
  const slots = ports.slots();
  if (slots.length === 0) return { dataDisks: [], minFreeSpaceBytes: 0 };
  const mounts = await readMountTable(paths.procDir);
  const measure = async (logical: string): Promise<FsUsage | null> => {
    const real = paths.real(logical);
    if (!mountAt(mounts, real)) return null;
    return statfsUsage(real).catch(() => null);
  };
  const branches = slots.filter((s) => s.role !== 'parity' && s.removalState === null);
  const measured = await Promise.all(
    branches.map(
      async (s): Promise<MeasuredDisk & { role: 'data' | 'cache' }> => ({
        role: s.role as 'data' | 'cache',
        roleIndex: s.roleIndex,
        mountpoint: s.mountpoint,
        serial: s.serial,
        device: s.device,
        usage: await measure(s.mountpoint),
      }),
    ),
  );
  const poolMount = mountAt(mounts, paths.userPool);
  let poolUsage: FsUsage | null;
  if (poolMount?.fsType.startsWith('fuse.mergerfs'))
    poolUsage = await statfsUsage(paths.userPool).catch(() => null);
  else if (measured.every((d) => d.usage !== null))
    // No pool mounted (mergerfs missing): what it would show, the sum of its branches.
    poolUsage = measured.reduce<FsUsage>(
      (sum, d) => ({
        totalBytes: sum.totalBytes + d.usage!.totalBytes,
        usedBytes: sum.usedBytes + d.usage!.usedBytes,
        freeBytes: sum.freeBytes + d.usage!.freeBytes,
      }),
      { totalBytes: 0, usedBytes: 0, freeBytes: 0 },
    );
  else poolUsage = null;
  const cache = measured.find((d) => d.role === 'cache');
  return {
    pool: { mountpoint: '/mnt/user', usage: poolUsage },
    ...(cache ? { cache } : {}),
    dataDisks: measured.filter((d) => d.role === 'data'),
    minFreeSpaceBytes:
      minFreeSpaceMiB(
        slots.map((s) => ({
          role: s.role,
          entry: {
            sizeBytes:
              s.sizeBytes ?? measured.find((d) => d.mountpoint === s.mountpoint)?.usage?.totalBytes ?? 0,
          },
        })),
      ) * MiB,
  };
}

export function spaceWatcher(ports: SpacePorts): WatcherDefinition {
  return {
    name: 'space',
    events: ['pool_above_threshold', 'disk_near_minfreespace', 'cache_above_threshold'],
    owns: [SPACE_KEY_PREFIX],
    intervalSeconds: () => ports.settings().intervals.space,
    async observe(previous) {
      return evaluateSpace(await spaceFacts(ports), ports.settings().space, previous);
    },
  };
}
