/**
 * The SMART core on real `smartctl --json` outputs (fixtures/smartctl/README.md says where each
 * comes from): a failing and a healthy ATA disk, a healthy NVMe drive and one with media errors,
 * and this machine's smartctl 7.3 on a loop device (unavailable) and in the standby skip.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide } from './model.ts';
import { DEFAULT_SETTINGS } from './settings.ts';
import {
  evaluateSmart,
  keepInHistory,
  parseSmartctl,
  type SmartDisk,
  smartCounters,
  smartDiskKey,
  smartFindings,
} from './smart.ts';

const fixture = (name: string): unknown =>
  JSON.parse(
    fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/smartctl', `${name}.json`), 'utf8'),
  );
const th = DEFAULT_SETTINGS.smart;
const disk = (name: string, over: Partial<SmartDisk> = {}): SmartDisk => ({
  role: 'data',
  roleIndex: 1,
  mountpoint: '/mnt/disk1',
  device: '/dev/sdb',
  diskKey: 'serial:X',
  reading: parseSmartctl(fixture(name)),
  ...over,
});

describe('parseSmartctl on real outputs', () => {
  it('a failing ATA disk: FAILED, attribute 5 failing now, the watched raw counters', () => {
    const r = parseSmartctl(fixture('ata-failing-hitachi-hds721050dle630'));
    expect(r).toMatchObject({
      state: 'ok',
      protocol: 'ATA',
      model: 'Hitachi HDS721050DLE630',
      serial: 'MSK423Y20S3HBC',
      passed: false,
      temperatureC: 25,
      powerOnHours: 65592,
      ata: { 5: 1975, 197: 8, 198: 0, 199: 0 },
      failingNow: [{ id: 5, name: 'Reallocated_Sector_Ct' }],
      nvme: null,
    });
  });

  it('a healthy ATA disk and a healthy NVMe drive', () => {
    expect(parseSmartctl(fixture('ata-healthy-wdc-wd140edfz'))).toMatchObject({
      state: 'ok',
      passed: true,
      temperatureC: 32,
      ata: { 5: 0, 197: 0, 198: 0, 199: 0 },
      failingNow: [],
    });
    expect(parseSmartctl(fixture('nvme-healthy-intel-ssdpeknw010t8'))).toMatchObject({
      state: 'ok',
      protocol: 'NVMe',
      passed: true,
      temperatureC: 36,
      nvme: {
        criticalWarning: 0,
        mediaErrors: 0,
        availableSpare: 100,
        availableSpareThreshold: 10,
        percentageUsed: 0,
      },
    });
  });

  it('smartctl 7.3 on a loop device: unavailable ("Unable to detect device type"); in the standby skip: standby', () => {
    expect(parseSmartctl(fixture('loop-unavailable-smartctl-7.3'))).toMatchObject({
      state: 'unavailable',
      detail: expect.stringMatching(/Unable to detect device type$/),
    });
    expect(parseSmartctl(fixture('loop-sat-sleep-smartctl-7.3'))).toMatchObject({
      state: 'standby',
      detail: 'Device is in SLEEP mode, exit(2)',
    });
  });

  it('garbage is unavailable, never a crash', () => {
    expect(parseSmartctl(null, 0).state).toBe('unavailable');
    expect(parseSmartctl({ smartctl: { exit_status: 1 } }).state).toBe('error');
    expect(parseSmartctl({ smart_support: { available: true, enabled: false } }).detail).toContain(
      'smartctl -s on',
    );
  });
});

describe('thresholds on real outputs', () => {
  it('the failing Hitachi: a failure naming attribute 5, and warnings for 1975 reallocated and 8 pending sectors', () => {
    const f = smartFindings(parseSmartctl(fixture('ata-failing-hitachi-hds721050dle630')), th);
    expect(f.map((x) => [x.id, x.eventType, x.value])).toEqual([
      ['failed', 'smart_failure', 'FAILED'],
      ['ata5', 'smart_warning', '1975 sectors'],
      ['ata197', 'smart_warning', '8 sectors'],
    ]);
    expect(f[0]!.what).toBe(
      "SMART reports the disk as failing: its overall health self-assessment is FAILED; attribute 5 Reallocated_Sector_Ct is at or below the vendor's threshold now.",
    );
  });

  it('the healthy WDC and Intel drives raise nothing', () => {
    expect(smartFindings(parseSmartctl(fixture('ata-healthy-wdc-wd140edfz')), th)).toEqual([]);
    expect(smartFindings(parseSmartctl(fixture('nvme-healthy-intel-ssdpeknw010t8')), th)).toEqual([]);
  });

  it('the Samsung that passes with 7 media errors: a warning, not a failure', () => {
    const f = smartFindings(parseSmartctl(fixture('nvme-media-errors-samsung-970-evo')), th);
    expect(f.map((x) => [x.id, x.eventType, x.value])).toEqual([
      ['nvme_media_errors', 'smart_warning', '7 media errors'],
    ]);
  });

  it('thresholds follow the settings: a raised CRC threshold, a lower temperature limit, a counter turned off', () => {
    const healthy = parseSmartctl(fixture('ata-healthy-wdc-wd140edfz'));
    const hot = smartFindings(healthy, { ...th, temperatureC: 30 });
    expect(hot.map((x) => [x.id, x.value])).toEqual([['temperature', '32 °C']]);
    const failing = parseSmartctl(fixture('ata-failing-hitachi-hds721050dle630'));
    const ids = smartFindings(failing, { ...th, pendingSectors: 0, reallocatedSectors: 2000 }).map(
      (x) => x.id,
    );
    expect(ids).toEqual(['failed']);
    const wornSpare = {
      ...failing,
      passed: true,
      failingNow: [],
      ata: null,
      nvme: {
        criticalWarning: 0x02,
        mediaErrors: 0,
        availableSpare: 15,
        availableSpareThreshold: 10,
        percentageUsed: 95,
      },
      temperatureC: 60,
    };
    expect(smartFindings(wornSpare, th).map((x) => x.id)).toEqual(['nvme_spare', 'nvme_wear', 'temperature']);
    expect(
      smartFindings({ ...wornSpare, nvme: { ...wornSpare.nvme, criticalWarning: 0x08 } }, th)[0]!.what,
    ).toContain('read-only');
  });
});

describe('evaluateSmart', () => {
  it('one condition per finding, keyed by the disk identity, naming slot, model and serial', () => {
    const o = evaluateSmart(
      [disk('ata-failing-hitachi-hds721050dle630', { diskKey: 'serial:MSK423Y20S3HBC' })],
      th,
    );
    expect(o.conditions.map((c) => [c.key, c.eventType])).toEqual([
      ['smart:serial:MSK423Y20S3HBC:failed', 'smart_failure'],
      ['smart:serial:MSK423Y20S3HBC:ata5', 'smart_warning'],
      ['smart:serial:MSK423Y20S3HBC:ata197', 'smart_warning'],
    ]);
    const failure = o.conditions[0]!;
    expect(failure.title).toBe('SMART: disk1 is failing');
    expect(failure.subject).toBe(
      'disk1 (/mnt/disk1, Hitachi HDS721050DLE630 serial MSK423Y20S3HBC, /dev/sdb)',
    );
    expect(failure.message).toMatch(
      /^disk1 \(\/mnt\/disk1, Hitachi HDS721050DLE630 serial MSK423Y20S3HBC, \/dev\/sdb\): SMART reports the disk as failing/,
    );
    expect(o.conditions[1]!.message).toContain(
      'SMART attribute 5 (reallocated sectors) is 1975 (warning at 1).',
    );
    expect(o.conditions[1]!.message).toContain('Backblaze');
  });

  it('a sleeping or SMART-less disk: a note, no condition, its held conditions kept', () => {
    const sleeping = disk('loop-sat-sleep-smartctl-7.3', { diskKey: 'serial:A' });
    const loop = disk('loop-unavailable-smartctl-7.3', {
      diskKey: 'device:/dev/loop3',
      role: 'data',
      roleIndex: 2,
      mountpoint: '/mnt/disk2',
      device: '/dev/loop3',
    });
    const o = evaluateSmart([sleeping, loop], th);
    expect(o.conditions).toEqual([]);
    expect(o.unobserved).toEqual(['smart:serial:A:', 'smart:device:/dev/loop3:']);
    expect(o.notes![0]!.message).toBe(
      'in standby: not checked, so as not to wake it (Device is in SLEEP mode, exit(2))',
    );
    expect(o.notes![1]).toEqual({
      subject: 'disk2 (/mnt/disk2, /dev/loop3)',
      message: expect.stringMatching(/^SMART unavailable: .*Unable to detect device type$/),
    });
    const held = [
      {
        key: 'smart:serial:A:ata5',
        eventType: 'smart_warning',
        subject: 's',
        value: '1',
        message: 'm',
        since: 'x',
      },
    ];
    expect(decide(o, held, ['smart:']).clears).toEqual([]);
  });
});

describe('identity and history', () => {
  it('keys a disk by WWN, else serial, else device', () => {
    expect(smartDiskKey({ wwn: '0x5000cca', serial: 'S', device: '/dev/sda' })).toBe('wwn:0x5000cca');
    expect(smartDiskKey({ serial: 'S', device: '/dev/sda' })).toBe('serial:S');
    expect(smartDiskKey({ device: '/dev/loop3' })).toBe('device:/dev/loop3');
  });

  it('keeps a reading when a counter or the verdict changed, or a day after the last kept one', () => {
    const r = parseSmartctl(fixture('ata-failing-hitachi-hds721050dle630'));
    const counters = smartCounters(r);
    expect(counters).toEqual({
      reallocatedSectors: 1975,
      pendingSectors: 8,
      offlineUncorrectable: 0,
      crcErrors: 0,
    });
    const last = { passed: false, counters, at: '2026-01-01T00:00:00.000Z' };
    expect(keepInHistory({ passed: false, counters }, null, new Date('2026-01-01T01:00:00Z'))).toBe(true);
    expect(keepInHistory({ passed: false, counters }, last, new Date('2026-01-01T01:00:00Z'))).toBe(false);
    expect(
      keepInHistory(
        { passed: false, counters: { ...counters, pendingSectors: 9 } },
        last,
        new Date('2026-01-01T01:00:00Z'),
      ),
    ).toBe(true);
    expect(keepInHistory({ passed: false, counters }, last, new Date('2026-01-02T00:00:00Z'))).toBe(true);
  });
});
