import { describe, expect, it } from 'vitest';
import { mkfsArgs } from './mkfs.ts';

describe('mkfs arguments', () => {
  it('forced, labelled, with the chosen UUID in each tool’s own option', () => {
    const o = { label: 'disk2', device: '/dev/sdz', uuid: '0b1c2d3e-aaaa-4bbb-8ccc-123456789abc' };
    expect(mkfsArgs('xfs', o)).toEqual(['-f', '-L', 'disk2', '-m', `uuid=${o.uuid}`, '/dev/sdz']);
    expect(mkfsArgs('ext4', o)).toEqual(['-F', '-q', '-L', 'disk2', '-U', o.uuid, '/dev/sdz']);
    expect(mkfsArgs('btrfs', o)).toEqual(['-f', '-L', 'disk2', '-U', o.uuid, '/dev/sdz']);
    expect(mkfsArgs('xfs', { label: 'parity1', device: '/dev/sdy' })).toEqual([
      '-f',
      '-L',
      'parity1',
      '/dev/sdy',
    ]);
  });
});
