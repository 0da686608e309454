import { AppError } from '@appliance/common';
import type { ExternalFilesystem } from './types.ts';

/** 1–64 ASCII characters, one path segment of `/mnt/disks/<label>` (07 §1). */
export const LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const LABEL_RULE =
  'a label is 1 to 64 ASCII letters, digits, "_" or "-", starting with a letter or a digit';

export function isValidLabel(label: unknown): label is string {
  return typeof label === 'string' && LABEL_PATTERN.test(label);
}

/** Longest filesystem label each filesystem accepts (07 §1). */
export const FS_LABEL_MAX: Readonly<Record<ExternalFilesystem, number>> = {
  xfs: 12,
  ext4: 16,
  btrfs: 64,
  exfat: 11,
};

/** `400 label_too_long` when the label does not fit the filesystem (check 12). */
export function assertLabelFits(label: string, filesystem: ExternalFilesystem): void {
  const maxLength = FS_LABEL_MAX[filesystem];
  if (label.length > maxLength) {
    throw new AppError(
      400,
      'label_too_long',
      `The label "${label}" has ${label.length} characters but ${filesystem} allows at most ${maxLength}: choose another filesystem or register the disk under a shorter label.`,
      { filesystem, maxLength },
    );
  }
}

/** Labels are unique case-insensitively (ASCII only, so lower-casing is exact). */
export const sameLabelIgnoringCase = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** Where an external disk is mounted (logical path). */
export const externalMountpoint = (label: string): string => `/mnt/disks/${label}`;
