/**
 * The device files of a host whose `/dev` may live under a root prefix (a sandbox's device
 * directory): `realpath` of a logical `/dev/…` path, reported logically again, and a read-only
 * handle that keeps a disk's block cache warm during a format (`ExternalDiskDeps.holdDevice`).
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ExternalDiskDeps } from '../ports.ts';

/** `realpath` and `holdDevice` over the device directory `devDir` (the host's `/dev`, or a sandbox's). */
export function deviceFiles(devDir: string): Pick<ExternalDiskDeps, 'realpath'> & {
  holdDevice(device: string): () => void;
} {
  /** The host path of a logical `/dev/…` device path. */
  const hostDevice = (device: string): string => path.join(devDir, path.relative('/dev', device));
  return {
    /** realpath of a logical `/dev/…` path, read under the host root and reported logically again. */
    async realpath(device) {
      const real = await fs.realpath(hostDevice(device));
      return devDir === '/dev' ? real : path.join('/dev', path.relative(devDir, real));
    },
    /** A read-only, non-blocking handle on the disk (its block cache stays warm); closed by the release. */
    holdDevice(device) {
      let fd: number;
      try {
        fd = fsSync.openSync(hostDevice(device), fsSync.constants.O_RDONLY | fsSync.constants.O_NONBLOCK);
      } catch {
        return () => undefined;
      }
      return () => fsSync.closeSync(fd);
    },
  };
}
