import { describe, expect, it } from 'vitest';
import { passphraseChange } from './passphrase.ts';

describe('passphraseChange', () => {
  const seal = (p: string) => `sealed(${p.length})`;
  it('omitted keeps, null clears, a string is sealed before it is stored; the audit never holds it', () => {
    expect(passphraseChange(undefined, seal)).toEqual({ stored: undefined, audit: 'kept' });
    expect(passphraseChange(null, seal)).toEqual({ stored: null, audit: 'cleared' });
    const set = passphraseChange('correct horse battery', seal);
    expect(set).toEqual({ stored: 'sealed(21)', audit: 'set' });
    expect(JSON.stringify(set)).not.toContain('horse');
  });
});
