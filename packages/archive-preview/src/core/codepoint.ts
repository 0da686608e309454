/** Compares strings by Unicode code point (the order of their UTF-8 bytes), not by UTF-16 unit. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export const sortByCodePoint = (values: Iterable<string>): string[] => [...values].sort(compareCodePoints);
