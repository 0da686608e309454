/**
 * `secrets.age` / `identity.age` (01 §1.5, §4.8) through the `age-encryption` library: binary age
 * files with exactly one scrypt recipient at work factor 2^16.
 */
import type { Identity, Stanza } from 'age-encryption';
import { LIMITS } from '../core/limits.ts';
import type { OpenOutcome } from '../core/secrets.ts';

export const SCRYPT_WORK_FACTOR = 16;

export async function encryptWithPassphrase(
  plaintext: string | Uint8Array,
  passphrase: string,
): Promise<Uint8Array> {
  // Loaded on first use, not at the service's start (docs/decisions/performance.md).
  const { Encrypter } = await import('age-encryption');
  const e = new Encrypter();
  e.setPassphrase(passphrase);
  e.setScryptWorkFactor(SCRYPT_WORK_FACTOR);
  return e.encrypt(plaintext);
}

class Unreadable extends Error {}

/**
 * Added before the passphrase: inspects the header's stanzas and throws when the file is not
 * exactly one scrypt stanza at a work factor ≤ 2^16 (so a costly file is never derived).
 */
const stanzaInspector: Identity = {
  unwrapFileKey(stanzas: Stanza[]) {
    if (stanzas.length !== 1) throw new Unreadable('the file must have exactly one recipient');
    const s = stanzas[0] as Stanza;
    if (s.args[0] !== 'scrypt') throw new Unreadable('the file is not encrypted with a passphrase');
    if (s.args.length !== 3 || !/^[1-9][0-9]*$/.test(s.args[2] as string)) {
      throw new Unreadable('the scrypt stanza is malformed');
    }
    if (Number(s.args[2]) > SCRYPT_WORK_FACTOR) throw new Unreadable('the scrypt work factor is over 2^16');
    return null;
  },
};

const NO_MATCH = /no identity matched/;

/**
 * Tries `passphrase` on an age file. `wrong` only when the library reports that no identity
 * matched; anything else that fails is `unreadable`. `validate` checks the plaintext.
 */
export async function openAgeFile<T>(
  bytes: Uint8Array,
  passphrase: string,
  validate: (plaintext: Uint8Array) => T | null,
): Promise<OpenOutcome<T>> {
  if (bytes.byteLength > LIMITS.ageFileBytes)
    return { kind: 'unreadable', reason: 'it is larger than 32 MiB' };
  const { Decrypter } = await import('age-encryption');
  const d = new Decrypter();
  d.addIdentity(stanzaInspector);
  d.addPassphrase(passphrase);
  let plaintext: Uint8Array;
  try {
    plaintext = await d.decrypt(bytes);
  } catch (err) {
    if (err instanceof Unreadable) return { kind: 'unreadable', reason: err.message };
    const message = err instanceof Error ? err.message : String(err);
    if (NO_MATCH.test(message)) return { kind: 'wrong' };
    return { kind: 'unreadable', reason: 'it is not a valid age file' };
  }
  const value = validate(plaintext);
  if (value === null) return { kind: 'unreadable', reason: 'its content is not valid' };
  return { kind: 'opened', value };
}
