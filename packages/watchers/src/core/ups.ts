/**
 * `ups_on_battery` and `ups_battery_low` from NUT's `ups.status` flags (OL on line, OB on battery,
 * LB low battery), with the battery charge and runtime NUT reports.
 */
import type { Condition, Observation } from './model.ts';

export interface UpsFacts {
  /** The UPS name in upsd, and where upsd is. */
  name: string;
  host: string;
  port: number;
  /** Every variable upsd reports for it (`ups.status`, `battery.charge`, …). */
  vars: Readonly<Record<string, string>>;
}

export const UPS_KEY_PREFIX = 'ups:';

/** `ups.status` as its flags (`OB LB` → `['OB', 'LB']`). */
export function upsFlags(status: string | undefined): string[] {
  return (status ?? '').split(/\s+/).filter(Boolean);
}

function describe(f: UpsFacts): string {
  const model = [f.vars['ups.mfr'] ?? f.vars['device.mfr'], f.vars['ups.model'] ?? f.vars['device.model']]
    .filter(Boolean)
    .join(' ');
  return `${model ? `${model} ` : ''}(${f.name} on ${f.host}:${f.port})`;
}

function battery(f: UpsFacts): string {
  const charge = f.vars['battery.charge'];
  const runtime = Number(f.vars['battery.runtime']);
  const parts = [
    charge !== undefined ? `battery at ${charge} %` : null,
    Number.isFinite(runtime) && f.vars['battery.runtime'] !== undefined
      ? `about ${Math.floor(runtime / 60)} minute${Math.floor(runtime / 60) === 1 ? '' : 's'} left`
      : null,
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

export function evaluateUps(f: UpsFacts): Observation {
  const status = f.vars['ups.status'];
  // upsd says WAIT while it has no data from the driver yet: nothing known, nothing cleared
  if (status === undefined || upsFlags(status).includes('WAIT'))
    return {
      conditions: [],
      unobserved: [`${UPS_KEY_PREFIX}${f.name}:`],
      notes: [
        {
          subject: `UPS ${f.name}`,
          message:
            status === undefined
              ? 'upsd reports no ups.status for this UPS'
              : 'upsd waits for the first data from the UPS driver',
        },
      ],
    };
  const flags = upsFlags(status);
  const ups = describe(f);
  const conditions: Condition[] = [];
  const note = { subject: `UPS ${ups}`, message: `status ${status}${battery(f)}` };
  if (flags.includes('OB'))
    conditions.push({
      key: `${UPS_KEY_PREFIX}${f.name}:on_battery`,
      eventType: 'ups_on_battery',
      subject: `the UPS ${ups}`,
      value: `on battery${battery(f)}`,
      title: `The UPS ${f.name} is on battery`,
      message: `The UPS ${ups} switched to battery: mains power is lost${battery(f)}. The appliance keeps running on the battery; if power does not come back soon, shut it down cleanly (appliance users: save your work).`,
    });
  if (flags.includes('LB'))
    conditions.push({
      key: `${UPS_KEY_PREFIX}${f.name}:battery_low`,
      eventType: 'ups_battery_low',
      subject: `the UPS ${ups}`,
      value: `battery low${battery(f)}`,
      title: `The UPS ${f.name} battery is low`,
      message: `The battery of the UPS ${ups} is low${battery(f)}: shut the appliance down now, before the UPS cuts the power (an unclean power loss can lose files being written and force a parity check).`,
    });
  return { conditions, notes: [note] };
}
