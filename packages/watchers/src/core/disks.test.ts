import { describe, expect, it } from 'vitest';
import { ARRAY_DEGRADED_KEY, evaluateDisks, hiddenKey, type SlotFacts } from './disks.ts';

const slot = (over: Partial<SlotFacts>): SlotFacts => ({
  role: 'data',
  roleIndex: 1,
  mountpoint: '/mnt/disk1',
  fsUuid: '0b7c-1',
  model: 'WDC WD140EDFZ-11A0VA0',
  serial: '9RK1XXXX',
  recordedDevice: '/dev/sdb',
  removalState: null,
  match: 'found',
  device: '/dev/sdb',
  mounted: true,
  ...over,
});
const parity = slot({
  role: 'parity',
  mountpoint: '/mnt/parity1',
  serial: 'PAR1',
  recordedDevice: '/dev/sda',
  device: '/dev/sda',
});

describe('evaluateDisks', () => {
  it('holds nothing while every slot is present and mounted', () => {
    expect(evaluateDisks([parity, slot({})]).conditions).toEqual([]);
  });

  it('a data disk gone while mounted: disk_offline naming slot, model and serial, and array_degraded', () => {
    const { conditions } = evaluateDisks([parity, slot({ match: 'missing', device: null })]);
    expect(conditions.map((c) => [c.key, c.eventType, c.value])).toEqual([
      ['disk:/mnt/disk1', 'disk_offline', 'disappeared while mounted'],
      [ARRAY_DEGRADED_KEY, 'array_degraded', 'disk1 offline'],
    ]);
    const offline = conditions[0]!;
    expect(offline.title).toBe('Array disk disk1 is offline (disappeared while mounted)');
    expect(offline.message).toContain('disk1 (/mnt/disk1, WDC WD140EDFZ-11A0VA0 serial 9RK1XXXX, /dev/sdb)');
    expect(offline.message).toContain('replace plan');
    expect(conditions[1]!.message).toContain('without full parity protection');
  });

  it('a present disk whose mount is lost is offline "not mounted", with the mount command to run', () => {
    const [c] = evaluateDisks([slot({ mounted: false })]).conditions;
    expect(c!.value).toBe('not mounted');
    expect(c!.message).toContain('mount UUID=0b7c-1 /mnt/disk1');
  });

  it('a cache disk offline is disk_offline but not array_degraded', () => {
    const cache = slot({ role: 'cache', mountpoint: '/mnt/cache', match: 'missing', mounted: false });
    const { conditions } = evaluateDisks([parity, slot({}), cache]);
    expect(conditions.map((c) => c.eventType)).toEqual(['disk_offline']);
    expect(conditions[0]!.title).toContain('cache');
  });

  it('a parity disk offline degrades the array and says parity cannot be used', () => {
    const { conditions } = evaluateDisks([{ ...parity, match: 'missing', mounted: false }, slot({})]);
    expect(conditions[1]!.value).toBe('parity1 offline');
    expect(conditions[1]!.message).toContain('parity sync');
  });

  it('a disk unpooled or unlisted on purpose is not expected any more', () => {
    expect(
      evaluateDisks([parity, slot({ removalState: 'unpooled', match: 'missing', mounted: false })])
        .conditions,
    ).toEqual([]);
    expect(
      evaluateDisks([parity, slot({ removalState: 'evacuating', match: 'missing', mounted: false })])
        .conditions,
    ).toHaveLength(2);
  });

  it('an ambiguous match counts as present', () => {
    expect(evaluateDisks([slot({ match: 'ambiguous' })]).conditions).toEqual([]);
  });

  it('a disk mounted over files: disk_offline naming the hidden files (issue 32), cleared when they are gone', () => {
    const entries = Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
    const { conditions } = evaluateDisks([parity, slot({ hidden: { count: 25, entries } })]);
    expect(conditions.map((c) => [c.key, c.eventType, c.value])).toEqual([
      [hiddenKey('/mnt/disk1'), 'disk_offline', 'mounted over 25 hidden entries'],
    ]);
    const c = conditions[0]!;
    expect(c.key).toBe('disk:/mnt/disk1:hidden');
    expect(c.title).toBe('Array disk disk1 is mounted over files on the system disk');
    expect(c.message).toContain('f00.txt, f01.txt');
    expect(c.message).toContain('f09.txt and 15 more.');
    expect(c.message).not.toContain('f10.txt');
    expect(c.message).toContain('mount --bind /mnt /tmp/look && ls /tmp/look/disk1');
    const one = evaluateDisks([slot({ hidden: { count: 1, entries: ['x'] } })]).conditions[0]!;
    expect(one.message).toContain(
      'mounted over 1 entry in the directory /mnt/disk1 on the system disk: x. They',
    );
    expect(evaluateDisks([parity, slot({ hidden: { count: 0, entries: [] } })]).conditions).toEqual([]);
    expect(evaluateDisks([parity, slot({ hidden: null })]).conditions).toEqual([]);
  });
});
