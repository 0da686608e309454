import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, settingsFromStored, WatcherSettingsSchema } from './settings.ts';

describe('watcher settings', () => {
  it('the defaults are valid settings', () => {
    expect(v.parse(WatcherSettingsSchema, DEFAULT_SETTINGS)).toEqual(DEFAULT_SETTINGS);
  });

  it('disks are checked at least every 5 s by default, so an offline disk is seen within 10 s', () => {
    expect(DEFAULT_SETTINGS.intervals.disks).toBeLessThanOrEqual(5);
  });

  it('refuses intervals under the minimum, unknown fields and a bad UPS', () => {
    const bad = {
      ...DEFAULT_SETTINGS,
      intervals: { ...DEFAULT_SETTINGS.intervals, smart: 10 },
      ups: { host: 'bad host!', port: 0, name: '' },
      extra: 1,
    };
    const r = v.safeParse(WatcherSettingsSchema, bad);
    expect(r.success).toBe(false);
    const paths = r.issues!.map((i) => v.getDotPath(i));
    expect(paths).toEqual(expect.arrayContaining(['intervals.smart', 'ups.host', 'ups.port', 'ups.name']));
  });

  it('stored settings read back: missing keys take their defaults, unknown keys are dropped, garbage is the defaults', () => {
    expect(settingsFromStored({ space: { poolUsedPercent: 80 }, intervals: { gone: 3 } })).toEqual({
      ...DEFAULT_SETTINGS,
      space: { ...DEFAULT_SETTINGS.space, poolUsedPercent: 80 },
    });
    expect(settingsFromStored('nonsense')).toEqual(DEFAULT_SETTINGS);
    expect(settingsFromStored({ certificateDays: -1 })).toEqual(DEFAULT_SETTINGS);
  });
});
