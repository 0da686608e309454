/**
 * The step texts of 03 §7.1 and §11 (placeholders become plain values), worded as the disk jobs of
 * issue 21 run them: see docs/decisions/disks.md ("Disk jobs").
 */
export interface StepValues {
  mountpoint: string;
  previousDevice: string;
  replacementDevice: string;
  filesystem: string;
  newMountpoint?: string | null;
  rebuildCommand?: string;
  roleIndex?: number;
}

/**
 * Data upgrade (03 §7.1, as the job runs it since issue 21): the array stays started and the pool
 * keeps serving the slot's files, read-only, until the switch.
 */
export function dataUpgradeSteps(v: StepValues): string[] {
  return [
    `Sync parity if "snapraid diff" reports anything waiting, then make ${v.mountpoint} read-only: the pool keeps serving its files and puts new files on the other disks.`,
    `Erase ${v.replacementDevice} and format it as ${v.filesystem}.`,
    `Mount ${v.replacementDevice} at a staging path and copy every file from ${v.mountpoint} to it, keeping owners, permissions, hard links, extended attributes and timestamps.`,
    `Compare every copied file with SnapRAID's hashes ("snapraid check -a -d d${v.roleIndex}" on the copy); stop if anything differs.`,
    `Unmount ${v.previousDevice} and mount ${v.replacementDevice} at ${v.mountpoint}.`,
    'Run "snapraid diff" and go on only if it reports no removed or changed files.',
    `Record ${v.replacementDevice} as the disk of ${v.mountpoint} and release ${v.previousDevice}, which is left unchanged.`,
    `Make ${v.mountpoint} writable again and run "snapraid sync".`,
  ];
}

/** Parity upgrade: the parity is rebuilt on the new disk while the array keeps the old one. */
export function parityUpgradeSteps(v: StepValues): string[] {
  const next = v.newMountpoint ?? '';
  return [
    'Sync parity if "snapraid diff" reports anything waiting, then hold syncs.',
    `Erase ${v.replacementDevice}, format it as xfs and mount it at ${next}.`,
    `Rebuild the parity onto ${next} from the data disks ("${v.rebuildCommand}" against it); the array keeps using ${v.mountpoint} meanwhile.`,
    'Run "snapraid check" against the new parity disk.',
    `Switch the SnapRAID configuration from ${v.mountpoint} to ${next}.`,
    `Unmount ${v.previousDevice} from ${v.mountpoint} and release it; its parity file is left unchanged.`,
    'Resume syncs.',
  ];
}

/** Data replace (03 §11): the pool keeps serving the other disks throughout. */
export function dataReplaceSteps(v: StepValues): string[] {
  return [
    `Hold syncs; the pool keeps serving the other disks and puts no new file on ${v.mountpoint}.`,
    `Erase ${v.replacementDevice} and format it as ${v.filesystem}.`,
    `Mount ${v.replacementDevice} at ${v.mountpoint}.`,
    `Run "${v.rebuildCommand}" to rebuild the files of ${v.mountpoint} from parity, then restore their owners, permissions and extended attributes as of the last sync.`,
    `Run "snapraid check -d d${v.roleIndex}" to confirm the rebuilt files.`,
    `Record ${v.replacementDevice} as the disk of ${v.mountpoint}, let the pool write to it again and run "snapraid sync".`,
  ];
}

export function parityReplaceSteps(v: StepValues): string[] {
  return [
    `Erase ${v.replacementDevice}, format it as xfs and mount it at ${v.mountpoint}.`,
    `Run "${v.rebuildCommand}" to recreate the parity file.`,
    'Run "snapraid check" against the new parity disk.',
    `Record ${v.replacementDevice} as the disk of ${v.mountpoint}.`,
  ];
}

/** `snapraid fix -d d<roleIndex>` (data), `-d parity` (level 1), `-d 2-parity` (level 2). */
export function rebuildCommand(role: 'data' | 'parity', roleIndex: number): string {
  if (role === 'data') return `snapraid fix -d d${roleIndex}`;
  return roleIndex === 1 ? 'snapraid fix -d parity' : `snapraid fix -d ${roleIndex}-parity`;
}
