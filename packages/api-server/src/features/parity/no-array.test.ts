// POST …/parity/sync and …/scrub without an array: 409 no_array, each saying what it asks for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

let s: Sandbox;
beforeAll(async () => {
  s = await startSandbox({ config: { logLevel: 'silent' } });
});
afterAll(async () => {
  await s?.close();
});

describe('parity without an array', () => {
  it('a scrub is refused with a sentence about scrubbing, a sync with one about syncing', async () => {
    const scrub = await s.call('POST', '/disks/array/parity/scrub', {});
    expect([scrub.status, scrub.body.code, scrub.body.message]).toEqual([
      409,
      'no_array',
      'No array with a parity disk is set up: set one up first (POST /api/v1/disks/array), then it can be scrubbed once its parity has been synced.',
    ]);
    const sync = await s.call('POST', '/disks/array/parity/sync', {});
    expect([sync.status, sync.body.code, sync.body.message]).toEqual([
      409,
      'no_array',
      'No array with a parity disk is set up: set one up first (POST /api/v1/disks/array), then its parity can be synced.',
    ]);
  });
});
