import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const KEY_CHECK_LABEL = 'appliance machine key check v1';
const SEAL_VERSION = 1;

export class MachineKeyError extends Error {
  override name = 'MachineKeyError';
}

/** HMAC-SHA256(machine key, fixed label), hex: identifies the installation without revealing the key. */
export function machineKeyCheck(key: Buffer): string {
  return createHmac('sha256', key).update(KEY_CHECK_LABEL).digest('hex');
}

/**
 * Loads the machine key (32 bytes, mode 0600). It is created only when neither the key nor a
 * database exists; a missing key beside an existing database stops startup (never regenerated).
 */
export function loadOrCreateMachineKey(
  keyFile: string,
  databaseExists: boolean,
): { key: Buffer; created: boolean } {
  if (fs.existsSync(keyFile)) {
    const key = fs.readFileSync(keyFile);
    if (key.length !== 32) {
      throw new MachineKeyError(
        `The machine key ${keyFile} is damaged (expected 32 bytes, found ${key.length}). Restore it from a backup.`,
      );
    }
    const mode = fs.statSync(keyFile).mode & 0o777;
    if (mode !== 0o600) fs.chmodSync(keyFile, 0o600);
    return { key, created: false };
  }
  if (databaseExists) {
    throw new MachineKeyError(
      `The machine key ${keyFile} is missing but a database exists. Restore the key file from a backup; it is never regenerated, because the sealed secrets would be lost.`,
    );
  }
  fs.mkdirSync(path.dirname(keyFile), { recursive: true, mode: 0o755 });
  const key = randomBytes(32);
  fs.writeFileSync(keyFile, key, { mode: 0o600, flag: 'wx' });
  return { key, created: true };
}

/** AES-256-GCM sealing of secrets at rest: version(1) ‖ iv(12) ‖ tag(16) ‖ ciphertext. */
export interface Sealer {
  seal(plain: string | Buffer): Buffer;
  unseal(sealed: Buffer): Buffer;
  unsealText(sealed: Buffer): string;
}

export function createSealer(key: Buffer): Sealer {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([
        cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain),
        cipher.final(),
      ]);
      return Buffer.concat([Buffer.from([SEAL_VERSION]), iv, cipher.getAuthTag(), body]);
    },
    unseal(sealed) {
      if (sealed.length < 29 || sealed[0] !== SEAL_VERSION)
        throw new Error('sealed value has an unknown format');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 13));
      decipher.setAuthTag(sealed.subarray(13, 29));
      return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
    },
    unsealText(sealed) {
      return this.unseal(sealed).toString('utf8');
    },
  };
}

export function sameCheck(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
