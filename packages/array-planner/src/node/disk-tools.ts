/**
 * The disk steps array setup and the disk jobs share: erase and format, read the filesystem UUID,
 * mount by UUID and check the mount, unmount, remount read-only or read-write. Every command goes
 * through the common runner (argument lists, fixed environment, timeouts).
 */
import fs from 'node:fs/promises';
import { type CommandRunner, type HostPaths, expectSuccess } from '@appliance/common';
import { mkfsArgs } from '../core/mkfs.ts';
import type { ArrayFilesystem } from '../core/types.ts';

/** `wipefs -a` then `mkfs.<fs>` with its label (and a chosen UUID when given). */
export async function formatDisk(
  runner: CommandRunner,
  o: { device: string; filesystem: ArrayFilesystem; label: string; uuid?: string; mkfsTimeoutMs?: number },
  onStep: (step: string) => void = () => undefined,
): Promise<void> {
  onStep(`wipefs ${o.device}`);
  expectSuccess(await runner.run('wipefs', ['-a', o.device], { timeoutMs: 60_000 }));
  onStep(`mkfs ${o.device}`);
  expectSuccess(
    await runner.run(
      `mkfs.${o.filesystem}`,
      mkfsArgs(o.filesystem, { label: o.label, device: o.device, ...(o.uuid ? { uuid: o.uuid } : {}) }),
      { timeoutMs: o.mkfsTimeoutMs ?? 600_000 },
    ),
  );
}

/** The filesystem UUID on `device` (`blkid -p`, read from the disk itself). */
export async function readFsUuid(runner: CommandRunner, device: string): Promise<string> {
  const uuid = expectSuccess(
    await runner.run('blkid', ['-p', '-s', 'UUID', '-o', 'value', device], { timeoutMs: 10_000 }),
  ).stdout.trim();
  if (!/^[0-9A-Fa-f-]{8,}$/.test(uuid)) throw new Error(`blkid reported no filesystem UUID for ${device}`);
  return uuid;
}

/**
 * Mounts the filesystem `UUID=<uuid>` at the real path of `logical` (created when missing) and
 * checks with `findmnt` that it is mounted from `device`. `options` e.g. `ro`.
 */
export async function mountByUuid(
  runner: CommandRunner,
  paths: HostPaths,
  o: { uuid: string; logical: string; device: string; options?: string },
): Promise<string> {
  const target = paths.real(o.logical);
  await fs.mkdir(target, { recursive: true });
  expectSuccess(
    await runner.run('mount', [...(o.options ? ['-o', o.options] : []), `UUID=${o.uuid}`, target], {
      timeoutMs: 60_000,
    }),
  );
  await checkMounted(runner, target, o.device);
  return target;
}

/** `findmnt` shows `target` mounted from `device` (realpaths compared), or a mergerfs pool when `device` is null. */
export async function checkMounted(
  runner: CommandRunner,
  target: string,
  device: string | null,
): Promise<void> {
  const r = expectSuccess(
    await runner.run('findmnt', ['-n', '-r', '-o', 'SOURCE,FSTYPE', '--mountpoint', target], {
      timeoutMs: 10_000,
    }),
  );
  const [source, fsType] = r.stdout.trim().split('\n').at(-1)?.split(' ') ?? [];
  if (device === null) {
    if (!fsType?.startsWith('fuse.mergerfs'))
      throw new Error(`${target} is not a mergerfs mount (${fsType ?? 'nothing'})`);
    return;
  }
  const [a, b] = await Promise.all([realpathOr(source ?? ''), realpathOr(device)]);
  if (a !== b) throw new Error(`${target} is mounted from ${source ?? 'nothing'}, not ${device}`);
}

/**
 * Unmounts a real target. A busy target is tried again for `busyWaitMs`; with `lazy` it is then
 * detached lazily (`umount -l`: gone from the tree at once, released when its last open file
 * closes — only for a disk nothing writes to any more). Throws when it stays mounted.
 */
export async function unmount(
  runner: CommandRunner,
  target: string,
  o: { busyWaitMs?: number; lazy?: boolean } = {},
): Promise<void> {
  const deadline = Date.now() + (o.busyWaitMs ?? 0);
  for (;;) {
    const r = await runner.run('umount', [target], { timeoutMs: 60_000 });
    if (r.exitCode === 0) return;
    if (Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 250));
      continue;
    }
    if (o.lazy) {
      expectSuccess(await runner.run('umount', ['-l', target], { timeoutMs: 60_000 }));
      return;
    }
    expectSuccess(r);
  }
}

/**
 * `mount -o remount,ro|rw`. Going read-only fails while a file is open for writing there; the
 * error names the target so the administrator knows what to close.
 */
export async function remount(runner: CommandRunner, target: string, mode: 'ro' | 'rw'): Promise<void> {
  expectSuccess(await runner.run('mount', ['-o', `remount,${mode}`, target], { timeoutMs: 60_000 }));
}

/** Whether the mount at a real target is read-only (`findmnt`; null: nothing mounted there). */
export async function mountedReadOnly(runner: CommandRunner, target: string): Promise<boolean | null> {
  const r = await runner.run('findmnt', ['-n', '-r', '-o', 'OPTIONS', '--mountpoint', target], {
    timeoutMs: 10_000,
  });
  const options = r.stdout.trim().split('\n').at(-1);
  if (r.exitCode !== 0 || !options) return null;
  return options.split(',').includes('ro');
}

const realpathOr = (p: string) => fs.realpath(p).catch(() => p);
