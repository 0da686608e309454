/**
 * A configuration archive handed from one page to the configuration import (a snapshot's archive
 * chosen on `/backups`): kept in memory only, read by `/configuration` when it opens, then forgotten.
 */
let pending: File | null = null;

export function handArchive(file: File): void {
  pending = file;
}

/** The archive handed over, if any (read while the page first renders). */
export function handedArchive(): File | null {
  return pending;
}

/** Forgets it (once the page holds it), so a later visit starts empty. */
export function forgetArchive(): void {
  pending = null;
}
