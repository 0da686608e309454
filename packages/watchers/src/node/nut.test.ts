/**
 * The NUT client against a real upsd with the dummy-ups driver (nut-server), on a free loopback
 * port: the variables, the status following the driver's file, and upsd's errors in words.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { requirePrerequisites, type LabUps, startLabUps } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVarLine, readUpsVariables } from './nut.ts';

let ups: LabUps;
beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['upsc'] });
  ups = await startLabUps({
    vars: { 'ups.status': 'OL', 'ups.mfr': 'Lab', 'ups.model': 'Dummy 1500', 'battery.charge': '100' },
  });
}, 60_000);
afterAll(async () => {
  await ups?.stop();
});

const read = () => readUpsVariables({ host: ups.host, port: ups.port, name: ups.name });

describe('readUpsVariables (real upsd + dummy-ups)', () => {
  it('lists the UPS variables', async () => {
    expect(await read()).toMatchObject({
      'ups.status': 'OL',
      'ups.mfr': 'Lab',
      'ups.model': 'Dummy 1500',
      'battery.charge': '100',
      'driver.name': 'dummy-ups',
    });
  });

  it('follows the driver: on battery, then low battery', async () => {
    await ups.setVars({ 'ups.status': 'OB LB', 'battery.charge': '8' });
    const end = Date.now() + 15_000;
    let vars = await read();
    while (vars['ups.status'] !== 'OB LB' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      vars = await read();
    }
    expect(vars).toMatchObject({ 'ups.status': 'OB LB', 'battery.charge': '8' });
  });

  it('follows a change written right after the driver read the previous one (each write gets a later whole-second mtime: dummy-ups compares seconds)', async () => {
    const until = async (status: string) => {
      const end = Date.now() + 15_000;
      let vars = await read();
      while (vars['ups.status'] !== status && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 50));
        vars = await read();
      }
      return vars['ups.status'];
    };
    const mtime = async () =>
      Math.floor((await fs.stat(path.join(ups.dir, `${ups.name}.dev`))).mtimeMs / 1000);
    for (const [first, second] of [
      ['OB DISCHRG', 'OB LB'],
      ['OL', 'OL CHRG'],
    ] as const) {
      await ups.setVars({ 'ups.status': first, 'battery.charge': '50' });
      expect(await until(first)).toBe(first);
      const before = await mtime();
      await ups.setVars({ 'ups.status': second, 'battery.charge': '50' });
      expect(await mtime()).toBeGreaterThan(before);
      expect(await until(second)).toBe(second);
    }
  }, 70_000);

  it('an unknown UPS and an unreachable server are errors that say what to check', async () => {
    await expect(readUpsVariables({ host: ups.host, port: ups.port, name: 'nope' })).rejects.toThrow(
      `upsd at 127.0.0.1:${ups.port} knows no UPS named nope`,
    );
    await expect(readUpsVariables({ host: '127.0.0.1', port: 1, name: 'lab' })).rejects.toThrow(
      /^the NUT server at 127\.0\.0\.1:1 is not reachable \(ECONNREFUSED\)/,
    );
  });

  it('parses quoted values with escapes', () => {
    expect(parseVarLine('VAR lab ups.mfr "A \\"B\\" \\\\ C"')).toEqual(['ups.mfr', 'A "B" \\ C']);
    expect(parseVarLine('BEGIN LIST VAR lab')).toBeNull();
  });
});
