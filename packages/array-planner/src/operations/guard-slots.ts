/**
 * The slots' mountpoint directories refuse writes while their disks are not mounted there (issue
 * 32, docs/decisions/disks.md "Offline disks"): every slot's directory is sealed (`chattr +i`, see
 * `guardMountpoint`) at every service start and again whenever a different mount (or none) is found
 * at it; what a directory holds under a mounted disk is remembered for the disks watcher, which
 * reports it (files hidden under the mount).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { logGuard } from '../node/array-setup.ts';
import { type MountpointGuard, guardMountpoint } from '../node/mountpoint-guard.ts';
import type { DiskJobPorts } from '../ports.ts';

interface Seen {
  /** The mount at the mountpoint when it was looked at (mountinfo id, or `none`). */
  mount: string;
  /** When (ms since the epoch). */
  at: number;
  guard: MountpointGuard;
}

/**
 * A directory is looked at again after this long whatever the mount table says: the kernel reuses
 * mount ids, so an unmount and a mount between two cycles can leave the same id behind.
 */
const LOOK_AGAIN_MS = 10 * 60_000;

/** The kernel's octal escapes in mountinfo fields (`\\040` for a space). */
const unescapeOctal = (s: string) =>
  s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));

export type GuardPorts = Pick<DiskJobPorts, 'slots' | 'runner' | 'paths' | 'log'>;

/** The guards of one service: what each slot's directory held when last looked at. */
export class SlotGuards {
  private readonly seen = new Map<string, Seen>();
  private running: Promise<Map<string, MountpointGuard>> | null = null;
  private readonly ports: GuardPorts;

  constructor(ports: GuardPorts) {
    this.ports = ports;
  }

  /**
   * Looks at every slot's mountpoint directory and seals it when empty; returns what each holds.
   * A directory is looked at again when the mount on it changed since, it held files, the look
   * failed, or the last look is 10 minutes old. Calls made while one runs share it.
   */
  guard(): Promise<Map<string, MountpointGuard>> {
    if (this.running) return this.running;
    const p = this.guardAll().finally(() => {
      this.running = null;
    });
    this.running = p;
    return p;
  }

  /** The id of the top mount at each target of the mount table (an id changes with every mount). */
  private async mountIds(): Promise<Map<string, string>> {
    const info = await fs
      .readFile(path.join(this.ports.paths.procDir, 'self', 'mountinfo'), 'utf8')
      .catch(() => '');
    const ids = new Map<string, string>();
    for (const line of info.split('\n')) {
      const f = line.split(' ');
      if (f[0] && f[4] !== undefined) ids.set(unescapeOctal(f[4]), f[0]);
    }
    return ids;
  }

  private async guardAll(): Promise<Map<string, MountpointGuard>> {
    const { ports, seen: memory } = this;
    const out = new Map<string, MountpointGuard>();
    const slots = ports.slots.listSlots();
    const ids = await this.mountIds();
    for (const slot of slots) {
      const mount = ids.get(ports.paths.real(slot.mountpoint)) ?? 'none';
      const before = memory.get(slot.mountpoint);
      // looked at again: a new mount (or none), a directory that held files (until they are moved
      // out), a failure, an old look; a sealed one or a filesystem without the flag stays as it was
      const now = Date.now();
      if (
        before &&
        before.mount === mount &&
        now - before.at < LOOK_AGAIN_MS &&
        (before.guard.seal === 'sealed' || before.guard.seal === 'unsupported')
      ) {
        out.set(slot.mountpoint, before.guard);
        continue;
      }
      try {
        const guard = await guardMountpoint(ports.runner, ports.paths, slot.mountpoint, {
          scratch: path.join(ports.paths.stateDir, 'mountpoint-guard'),
        });
        // said once per mount (and again when it changes), not at every watcher cycle
        if (!before || before.mount !== mount || before.guard.seal !== guard.seal)
          logGuard((m, f) => ports.log.warn(m, f), guard);
        memory.set(slot.mountpoint, { mount, at: now, guard });
        out.set(slot.mountpoint, guard);
      } catch (err) {
        ports.log.warn(`could not look at the mountpoint ${slot.mountpoint}`, {
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    for (const key of [...memory.keys()]) if (!slots.some((s) => s.mountpoint === key)) memory.delete(key);
    await fs.rmdir(path.join(ports.paths.stateDir, 'mountpoint-guard')).catch(() => undefined);
    return out;
  }
}
