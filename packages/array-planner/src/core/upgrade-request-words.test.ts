// The sentences of a parity upgrade's new_mountpoint_mismatch (issue 32): a missing newMountpoint
// is said to be missing, never "not (none)"; a stale one names both mountpoints.
import { describe, expect, it } from 'vitest';
import { disk, inventory, TB, world } from '../test-support/fixtures.ts';
import { checkUpgradeRequest } from './upgrade-request.ts';

describe('a parity upgrade without the right newMountpoint', () => {
  const ask = (newMountpoint: string | null | undefined) => {
    const w = world();
    return checkUpgradeRequest({
      request: { mountpoint: '/mnt/parity1', device: '/dev/sdy' },
      rows: w.rows,
      inventory: inventory([...w.disks, disk('/dev/sdy', { sizeBytes: 20 * TB })]),
      externals: [],
      confirmation: 'ERASE /dev/sdy',
      ...(newMountpoint !== undefined ? { newMountpoint } : {}),
      runningDiskJobId: null,
    }).refusal;
  };

  it('says the newMountpoint is missing, and which one to send', () => {
    for (const missing of [undefined, null]) {
      const r = ask(missing);
      expect(r?.message).toBe(
        `A parity upgrade needs the plan's newMountpoint: the new parity disk will be mounted at /mnt/parity2. Send "newMountpoint": "/mnt/parity2" as the plan gave it.`,
      );
      expect(r?.message).not.toContain('(none)');
      expect(r?.details).toMatchObject({
        reason: 'new_mountpoint_mismatch',
        expected: '/mnt/parity2',
        given: null,
      });
    }
  });

  it('calls a different one stale, naming both', () => {
    expect(ask('/mnt/parity1')?.message).toBe(
      'The plan is stale: the new parity disk would now be mounted at /mnt/parity2, not /mnt/parity1. Ask for a new plan and send its newMountpoint.',
    );
  });
});
