/** The array's slots on this host as a `SlotsReader`: a slot is present when its disk is mounted there. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type HostPaths, parseMountInfo } from '@appliance/common';
import type { ParitySlot, SlotsReader } from '../ports.ts';

/**
 * `list` gives the recorded slots; a slot is present when something is mounted at its mountpoint
 * (`paths.procDir`'s mount table; unreadable: none). With `plainDirectories` (a sandbox root
 * outside lab mode, where the slots are plain directories) a slot counts when its directory exists.
 */
export function hostSlots(
  list: () => readonly ParitySlot[],
  o: { paths: HostPaths; plainDirectories: boolean },
): SlotsReader {
  const { paths } = o;
  return {
    list,
    present: (slot) =>
      o.plainDirectories
        ? fs.stat(paths.real(slot.mountpoint)).then(
            (st) => st.isDirectory(),
            () => false,
          )
        : fs
            .readFile(path.join(paths.procDir, 'self', 'mountinfo'), 'utf8')
            .catch(() => '')
            .then((text) => parseMountInfo(text).some((m) => m.target === paths.real(slot.mountpoint))),
  };
}
