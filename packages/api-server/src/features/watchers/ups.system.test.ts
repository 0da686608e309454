/**
 * The UPS watcher through the real server and a real NUT server (upsd with the dummy-ups driver on
 * a free loopback port, as root, configuration in a temp dir): its status file switched from on
 * line to on battery to low battery; ups_on_battery and ups_battery_low reach a routed webhook and
 * SMTP receiver once each, and clear when the power is back. Without a UPS in the settings the
 * watcher is off and its events are not observed.
 */
import { type LabUps, requirePrerequisites, startLabUps } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';
import { alertsOf, labHostRoot, type Receivers, routedReceivers } from '../../../test-support/watchers.ts';

describe('UPS watcher (upsd + dummy-ups)', () => {
  let ups: LabUps;
  let s: Sandbox;
  let rx: Receivers;
  let hostRoot: ReturnType<typeof labHostRoot>;
  const health = async () => (await s.call('GET', '/health')).body;
  const observed = async (t: string) =>
    (await s.call('GET', '/notifications/event-types')).body.eventTypes.find(
      (e: { eventType: string }) => e.eventType === t,
    ).observed;
  const model = { 'ups.mfr': 'Eaton', 'ups.model': '5E 1100i' };
  /** Switches the driver's status file, then runs cycles until upsd reports the new status (the driver re-reads it every second). */
  const switchTo = async (vars: Record<string, string>) => {
    await ups.setVars({ ...model, ...vars });
    const end = Date.now() + 15_000;
    for (;;) {
      await s.server.ctx.watchers.runOnce('ups');
      const notes = (await health()).watchers.find((w: { name: string }) => w.name === 'ups').notes;
      if (notes[0]?.message.startsWith(`status ${vars['ups.status']} `)) return;
      if (Date.now() > end)
        throw new Error(`upsd did not report ${vars['ups.status']}: ${JSON.stringify(notes)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    await requirePrerequisites({ root: true, tools: ['upsc'] });
    ups = await startLabUps({
      vars: { ...model, 'ups.status': 'OL', 'battery.charge': '100', 'battery.runtime': '1800' },
    });
    hostRoot = labHostRoot();
    s = await startSandbox({ hostRoot: hostRoot.dir });
    rx = await routedReceivers(s, ['ups_on_battery', 'ups_battery_low']);
  }, 120_000);

  afterAll(async () => {
    await s?.close();
    await rx?.close();
    await ups?.stop();
    hostRoot?.remove();
  });

  it('no UPS in the settings: the watcher is off, its events not observed', async () => {
    expect(await observed('ups_on_battery')).toBe(false);
    const status = (await health()).watchers.find((w: { name: string }) => w.name === 'ups');
    expect(status).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('no UPS') });
  });

  it('with the UPS configured and on line: nothing held, the status shown', async () => {
    const settings = (await s.call('GET', '/settings/watchers')).body;
    const put = await s.call('PUT', '/settings/watchers', {
      ...settings,
      ups: { host: ups.host, port: ups.port, name: ups.name },
    });
    expect(put.status, put.text).toBe(200);
    expect(await observed('ups_on_battery')).toBe(true);
    expect(await observed('ups_battery_low')).toBe(true);
    await switchTo({ 'ups.status': 'OL', 'battery.charge': '100', 'battery.runtime': '1800' });
    expect((await health()).conditions).toEqual([]);
  });

  it('on battery: ups_on_battery once, naming the UPS, charge and runtime', async () => {
    await switchTo({ 'ups.status': 'OB DISCHRG', 'battery.charge': '87', 'battery.runtime': '840' });
    const { webhook, mail } = await rx.waitFor('ups_on_battery');
    expect(webhook[0]!.title).toBe('The UPS lab is on battery');
    expect(webhook[0]!.message).toBe(
      `The UPS Eaton 5E 1100i (lab on 127.0.0.1:${ups.port}) switched to battery: mains power is lost (battery at 87 %, about 14 minutes left). The appliance keeps running on the battery; if power does not come back soon, shut it down cleanly (appliance users: save your work).`,
    );
    expect(mail[0]!.subject).toBe('[warning] The UPS lab is on battery');
    for (let i = 0; i < 3; i++) await s.server.ctx.watchers.runOnce('ups');
    expect(alertsOf(s, 'ups_on_battery')).toHaveLength(1);
  }, 60_000);

  it('low battery: ups_battery_low once, on battery not raised again', async () => {
    await switchTo({ 'ups.status': 'OB LB', 'battery.charge': '8', 'battery.runtime': '90' });
    const { webhook, mail } = await rx.waitFor('ups_battery_low');
    expect(webhook[0]!.message).toContain('The battery of the UPS Eaton 5E 1100i');
    expect(webhook[0]!.message).toContain('battery at 8 %, about 1 minute left');
    expect(mail[0]!.subject).toBe('[critical] The UPS lab battery is low');
    expect(alertsOf(s, 'ups_on_battery')).toHaveLength(1);
    expect((await health()).conditions.map((c: { key: string }) => c.key)).toEqual([
      'ups:lab:on_battery',
      'ups:lab:battery_low',
    ]);
  }, 60_000);

  it('power back: both clear', async () => {
    await switchTo({ 'ups.status': 'OL CHRG', 'battery.charge': '9', 'battery.runtime': '100' });
    expect((await health()).conditions).toEqual([]);
    expect(alertsOf(s, 'ups_battery_low')).toHaveLength(1);
  }, 60_000);

  it('upsd gone: the watcher fails once in the log, shown in GET /health', async () => {
    await ups.stop();
    for (let i = 0; i < 3; i++) await s.server.ctx.watchers.runOnce('ups');
    const status = (await health()).watchers.find((w: { name: string }) => w.name === 'ups');
    expect(status.error.message).toMatch(
      /^the NUT server at 127\.0\.0\.1:\d+ is not reachable \(ECONNREFUSED\)/,
    );
    expect(s.logs.filter((l) => l.includes('"watcher failed"') && l.includes('"ups"'))).toHaveLength(1);
  }, 60_000);
});
