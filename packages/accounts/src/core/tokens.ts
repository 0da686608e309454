import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PATTERN = /^apat_[0-9a-f]{64}$/;

/** `apat_` + 64 lowercase hex (32 random bytes). Shown once; only its SHA-256 is stored. */
export function generateToken(bytes: (n: number) => Buffer = randomBytes): string {
  return `apat_${bytes(32).toString('hex')}`;
}

export function tokenHash(raw: string): string {
  return hash('sha256', raw, 'hex');
}

export function sameDigest(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
