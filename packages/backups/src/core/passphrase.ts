/**
 * A change of the backup passphrase in the settings (`PUT /settings`): omitted keeps the stored
 * one, null clears it, a string sets it, sealed before it is stored (never written in clear). The
 * audit entry says which, never the passphrase.
 */
export interface PassphraseChange<S> {
  /** What to store: the sealed passphrase, null to clear, undefined to keep the stored one. */
  stored: S | null | undefined;
  audit: 'kept' | 'cleared' | 'set';
}

export function passphraseChange<S>(
  value: string | null | undefined,
  seal: (passphrase: string) => S,
): PassphraseChange<S> {
  if (value === undefined) return { stored: undefined, audit: 'kept' };
  if (value === null) return { stored: null, audit: 'cleared' };
  return { stored: seal(value), audit: 'set' };
}
