import { describe, expect, it } from 'vitest';
import { defaultHostname, hostnameLabelsValid, isHostname } from './hostname.ts';
import { isTimeZone } from './schedule.ts';

describe('host name', () => {
  it('accepts dot-separated lowercase labels with inner hyphens, up to 253 characters', () => {
    expect(isHostname('nas')).toBe(true);
    expect(isHostname('nas-1.home.arpa')).toBe(true);
    for (const bad of ['', 'NAS', '-nas', 'nas-', 'a..b', 'nas_1', `${'a'.repeat(64)}`])
      expect([bad, isHostname(bad)]).toEqual([bad, false]);
    const long = Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.');
    expect([hostnameLabelsValid(long), isHostname(long)]).toEqual([true, false]);
  });

  it("a new installation takes the machine's name lowercased, else appliance", () => {
    expect(defaultHostname('Debian-NAS')).toBe('debian-nas');
    expect(defaultHostname('my_box')).toBe('appliance');
  });

  it('time zones: IANA names and UTC', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
