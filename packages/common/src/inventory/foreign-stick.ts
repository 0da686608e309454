/**
 * The foreign boot stick rule (07 §5): a disk is an Unraid USB flash drive when
 *   1. the whole disk holds a `vfat` filesystem labelled UNRAID, or
 *   2. its first partition holds a `vfat` filesystem labelled UNRAID, or
 *   3. any of its partitions holds a filesystem labelled UNRAID, of any type.
 * Labels compare ASCII case-insensitively after trimming surrounding spaces; for `vfat` the
 * boot-sector copy of the label (LABEL_FATBOOT) counts as well.
 */
export interface LabelFacts {
  filesystem: string | null;
  label: string | null;
  labelFatboot?: string | null;
}

export interface StickCandidate extends LabelFacts {
  /** Already decided by the inventory reader (which saw the boot-sector labels). */
  foreignStick?: boolean;
  partitions: ReadonlyArray<LabelFacts & { number: number }>;
}

/** Direct `blkid -p` probes of the disk and its partitions (the pre-write re-check of 07 §6.5). */
export interface StickProbes {
  disk?: LabelFacts | null;
  partitions?: ReadonlyArray<LabelFacts & { number: number }>;
}

const ASCII_UPPER = (s: string): string =>
  s.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 32));

/** `UNRAID`, `unraid`, `Unraid `: ASCII case-insensitive, surrounding spaces trimmed. */
export function isUnraidLabel(label: string | null | undefined): boolean {
  if (typeof label !== 'string') return false;
  return ASCII_UPPER(label.replace(/^ +| +$/g, '')) === 'UNRAID';
}

const vfatUnraid = (f: LabelFacts | null | undefined): boolean =>
  !!f && f.filesystem === 'vfat' && (isUnraidLabel(f.label) || isUnraidLabel(f.labelFatboot));

const partitionUnraid = (f: LabelFacts): boolean => isUnraidLabel(f.label) || vfatUnraid(f);

function factsSayStick(
  disk: LabelFacts | null | undefined,
  partitions: ReadonlyArray<LabelFacts & { number: number }>,
): boolean {
  if (vfatUnraid(disk)) return true;
  const first = partitions.find((p) => p.number === 1);
  if (vfatUnraid(first)) return true;
  return partitions.some(partitionUnraid);
}

/** True when the inventory facts or the direct probes say "stick" (either source suffices). */
export function isForeignStick(entry: StickCandidate, probes?: StickProbes): boolean {
  if (entry.foreignStick === true) return true;
  if (factsSayStick(entry, entry.partitions)) return true;
  if (probes && factsSayStick(probes.disk, probes.partitions ?? [])) return true;
  return false;
}
