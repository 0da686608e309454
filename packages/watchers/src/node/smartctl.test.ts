/**
 * The SMART probe with the real smartctl (smartmontools) on a loop device: SMART unavailable, and
 * the `-n standby` skip (a loop device forced to SAT answers as a sleeping disk), never woken.
 */
import { createCommandRunner } from '@appliance/common';
import { createLoopDisk, type LoopDisk, requirePrerequisites } from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSmart, smartctlArgs } from './smartctl.ts';

let disk: LoopDisk;
beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['smartctl', 'losetup'] });
  disk = await createLoopDisk({ sizeBytes: 16 * 1024 * 1024 });
});
afterAll(async () => {
  await disk?.destroy();
});

describe('readSmart (real smartctl)', () => {
  it('a loop device has no SMART: unavailable, with smartctl’s reason', async () => {
    const r = await readSmart(createCommandRunner(), disk.device);
    expect(r).toMatchObject({ state: 'unavailable', detail: `${disk.device}: Unable to detect device type` });
  });

  it('in the standby skip smartctl reads nothing: standby', async () => {
    const r = await readSmart(createCommandRunner(), disk.device, { deviceType: 'sat' });
    expect(r).toMatchObject({ state: 'standby', detail: expect.stringMatching(/mode, exit\(2\)$/) });
  });

  it('every probe asks smartctl not to wake a sleeping disk', () => {
    expect(smartctlArgs('/dev/sda')).toEqual(['--json', '-a', '-n', 'standby', '/dev/sda']);
    expect(smartctlArgs('/dev/sdb', { deviceType: 'sat' })).toEqual([
      '--json',
      '-a',
      '-n',
      'standby',
      '-d',
      'sat',
      '/dev/sdb',
    ]);
  });

  it('a smartctl that is not installed is 501 naming smartmontools', async () => {
    const runner = createCommandRunner({ path: '/nonexistent' });
    await expect(readSmart(runner, disk.device)).rejects.toMatchObject({
      status: 501,
      code: 'not_configured',
      details: { tool: 'smartctl', package: 'smartmontools' },
    });
  });
});
