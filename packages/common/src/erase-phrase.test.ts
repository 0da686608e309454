import { describe, expect, it } from 'vitest';
import { confirmationMatches, erasePhrase } from './erase-phrase.ts';

describe('erasePhrase', () => {
  it('sorts by code unit and joins with a comma and a space', () => {
    expect(erasePhrase(['/dev/sdb', '/dev/sda', '/dev/sdaa'])).toBe('ERASE /dev/sda, /dev/sdaa, /dev/sdb');
    expect(erasePhrase(['/dev/loop2', '/dev/loop10'])).toBe('ERASE /dev/loop10, /dev/loop2');
    expect(erasePhrase(['/dev/sdz'])).toBe('ERASE /dev/sdz');
  });
  it('compares byte for byte', () => {
    expect(confirmationMatches('ERASE /dev/sdz', 'ERASE /dev/sdz')).toBe(true);
    expect(confirmationMatches('ERASE /dev/sdz ', 'ERASE /dev/sdz')).toBe(false);
    expect(confirmationMatches('erase /dev/sdz', 'ERASE /dev/sdz')).toBe(false);
    expect(confirmationMatches(null, 'ERASE /dev/sdz')).toBe(false);
  });
});
