import { AppError, Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { checkPlan, DEFAULT_DRILL, DEFAULT_RETENTION, type PlanFacts, type PlanSpec } from './plan.ts';

const spec = (o: Partial<PlanSpec> = {}): PlanSpec => ({
  enabled: true,
  destination: 'backup',
  configuration: true,
  stacks: [{ name: 'web', keepRunning: false }],
  shares: ['media'],
  schedule: { kind: 'daily', time: '03:30' },
  retention: DEFAULT_RETENTION,
  drill: DEFAULT_DRILL,
  ...o,
});
const facts: PlanFacts = {
  stacks: ['web'],
  shares: ['media'],
  destinations: [
    { label: 'backup', backupDestination: true },
    { label: 'photos', backupDestination: false },
  ],
  passphraseSet: true,
};
const code = (s: PlanSpec, f: PlanFacts = facts) => {
  const e = checkPlan(s, f);
  return e ? e.code : null;
};

describe('checkPlan', () => {
  it('accepts a plan that names what exists', () => {
    expect(checkPlan(spec(), facts)).toBeNull();
  });
  it('refuses a plan with nothing to back up, duplicates or a retention that keeps nothing (bad_request)', () => {
    expect(code(spec({ configuration: false, stacks: [], shares: [] }))).toBe('bad_request');
    expect(code(spec({ shares: ['media', 'media'] }))).toBe('bad_request');
    expect(
      code(
        spec({
          stacks: [
            { name: 'web', keepRunning: false },
            { name: 'web', keepRunning: true },
          ],
        }),
      ),
    ).toBe('bad_request');
    expect(code(spec({ retention: { daily: 0, weekly: 0, monthly: 0 } }))).toBe('bad_request');
  });
  it('names what does not exist, in order destination, stacks, shares', () => {
    expect(code(spec({ destination: 'nope', shares: ['nope'] }))).toBe('external_disk_not_found');
    expect(code(spec({ stacks: [{ name: 'db', keepRunning: false }], shares: ['x'] }))).toBe(
      'stack_not_found',
    );
    const e = checkPlan(spec({ shares: ['x'] }), facts);
    expect(e?.code).toBe('share_not_found');
    expect(e?.details).toEqual({ share: 'x' });
    expect(e?.message).toMatch(/list the shares/);
    expect(e).toBeInstanceOf(Refusal);
    expect(e).not.toBeInstanceOf(AppError); // no HTTP status: the server's error map gives it
  });
  it('refuses a disk that is not a backup destination, and a box without a backup passphrase', () => {
    expect(code(spec({ destination: 'photos' }))).toBe('not_a_backup_destination');
    const e = checkPlan(spec(), { ...facts, passphraseSet: false });
    expect(e?.code).toBe('backup_passphrase_required');
    expect(e?.message).toMatch(/backup passphrase in the settings/);
  });
});
