import { describe, expect, it } from 'vitest';
import { ObservedEvents } from './observed.ts';

describe('ObservedEvents', () => {
  it('an event is observed when some feature raises it always, or its condition holds now', () => {
    const observed = new ObservedEvents<{ ups: boolean }>();
    observed.add('disk_offline');
    observed.add({ eventType: 'ups_on_battery', when: (ctx) => ctx.ups });
    expect(observed.observed('disk_offline', { ups: false })).toBe(true);
    expect(observed.observed('ups_on_battery', { ups: false })).toBe(false);
    expect(observed.observed('ups_on_battery', { ups: true })).toBe(true);
    expect(observed.observed('parity_sync_failed', { ups: true })).toBe(false);
    observed.add('ups_on_battery');
    expect(observed.observed('ups_on_battery', { ups: false })).toBe(true);
  });
});
