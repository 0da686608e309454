/** The exact step texts of 03 §7.1 and §11; placeholders become plain values. */
export interface StepValues {
  mountpoint: string;
  previousDevice: string;
  replacementDevice: string;
  filesystem: string;
  newMountpoint?: string | null;
  rebuildCommand?: string;
  roleIndex?: number;
}

export function dataUpgradeSteps(v: StepValues): string[] {
  return [
    'Stop the array and check that "snapraid diff" reports nothing waiting to be synced.',
    `Erase ${v.replacementDevice} and format it as ${v.filesystem}.`,
    `Mount ${v.replacementDevice} at a staging path and copy every file from ${v.mountpoint} to it, keeping owners, permissions, extended attributes and timestamps.`,
    `Compare every copied file with the original on ${v.mountpoint}; stop if anything differs.`,
    `Unmount ${v.previousDevice} and mount ${v.replacementDevice} at ${v.mountpoint}.`,
    'Run "snapraid diff" and go on only if it reports no removed or changed files.',
    `Record ${v.replacementDevice} as the disk of ${v.mountpoint} and release ${v.previousDevice}, which is left unchanged.`,
    'Leave the array stopped until you start it.',
  ];
}

export function parityUpgradeSteps(v: StepValues): string[] {
  const next = v.newMountpoint ?? '';
  return [
    `Erase ${v.replacementDevice}, format it as xfs and mount it at ${next}.`,
    `Hold syncs and copy snapraid.parity from ${v.mountpoint} to ${next}.`,
    'Compare the copy with the original byte for byte.',
    `Switch the SnapRAID configuration from ${v.mountpoint} to ${next}.`,
    'Run "snapraid check" against the new parity disk.',
    `Once the check passes, unmount ${v.previousDevice} from ${v.mountpoint} and release it; its parity file is left unchanged.`,
    'Resume syncs.',
  ];
}

export function dataReplaceSteps(v: StepValues): string[] {
  return [
    'Stop the array.',
    `Erase ${v.replacementDevice} and format it as ${v.filesystem}.`,
    `Mount ${v.replacementDevice} at ${v.mountpoint}.`,
    `Run "${v.rebuildCommand}" to rebuild the files of ${v.mountpoint} from parity.`,
    `Run "snapraid check -d d${v.roleIndex}" to confirm the rebuilt files.`,
    `Record ${v.replacementDevice} as the disk of ${v.mountpoint} and start the array.`,
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
