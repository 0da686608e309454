import { describe, expect, it } from 'vitest';
import { evaluateUps, upsFlags } from './ups.ts';

const ups = (vars: Record<string, string>) => ({ name: 'lab', host: '127.0.0.1', port: 3493, vars });
const base = {
  'ups.mfr': 'Eaton',
  'ups.model': '5E 1100i',
  'battery.charge': '87',
  'battery.runtime': '840',
};

describe('evaluateUps', () => {
  it('on line: nothing, a note with the status', () => {
    const o = evaluateUps(ups({ ...base, 'ups.status': 'OL' }));
    expect(o.conditions).toEqual([]);
    expect(o.notes).toEqual([
      {
        subject: 'UPS Eaton 5E 1100i (lab on 127.0.0.1:3493)',
        message: 'status OL (battery at 87 %, about 14 minutes left)',
      },
    ]);
  });

  it('on battery: ups_on_battery naming the UPS, the charge and the runtime', () => {
    const [c, ...rest] = evaluateUps(ups({ ...base, 'ups.status': 'OB DISCHRG' })).conditions;
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      key: 'ups:lab:on_battery',
      eventType: 'ups_on_battery',
      title: 'The UPS lab is on battery',
      value: 'on battery (battery at 87 %, about 14 minutes left)',
    });
    expect(c!.message).toBe(
      'The UPS Eaton 5E 1100i (lab on 127.0.0.1:3493) switched to battery: mains power is lost (battery at 87 %, about 14 minutes left). The appliance keeps running on the battery; if power does not come back soon, shut it down cleanly (appliance users: save your work).',
    );
  });

  it('on battery and low: both conditions', () => {
    const o = evaluateUps(ups({ ...base, 'ups.status': 'OB LB', 'battery.charge': '8' }));
    expect(o.conditions.map((c) => c.eventType)).toEqual(['ups_on_battery', 'ups_battery_low']);
    expect(o.conditions[1]!.message).toContain('shut the appliance down now');
  });

  it('no status, or upsd still waiting for the driver: unobserved (held conditions kept)', () => {
    expect(evaluateUps(ups({})).unobserved).toEqual(['ups:lab:']);
    expect(evaluateUps(ups({ 'ups.status': 'WAIT' })).unobserved).toEqual(['ups:lab:']);
  });

  it('reads the flags', () => {
    expect(upsFlags('OB  LB CHRG')).toEqual(['OB', 'LB', 'CHRG']);
    expect(upsFlags(undefined)).toEqual([]);
  });
});
