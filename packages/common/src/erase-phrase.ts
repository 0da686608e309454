/**
 * The typed confirmation of every operation that formats disks (03 §4):
 * "ERASE " + the kernel paths sorted ascending by code unit, joined by ", ".
 */
export function erasePhrase(devices: readonly string[]): string {
  const sorted = [...devices].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `ERASE ${sorted.join(', ')}`;
}

/** Byte-for-byte comparison: no trimming, case folding or normalization. */
export function confirmationMatches(given: unknown, expected: string): boolean {
  return typeof given === 'string' && given === expected;
}
