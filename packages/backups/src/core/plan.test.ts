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
  return e ? [e.status, e.code] : null;
};

describe('checkPlan', () => {
  it('accepts a plan that names what exists', () => {
    expect(checkPlan(spec(), facts)).toBeNull();
  });
  it('refuses a plan with nothing to back up, duplicates or a retention that keeps nothing (400)', () => {
    expect(code(spec({ configuration: false, stacks: [], shares: [] }))).toEqual([400, 'bad_request']);
    expect(code(spec({ shares: ['media', 'media'] }))).toEqual([400, 'bad_request']);
    expect(
      code(
        spec({
          stacks: [
            { name: 'web', keepRunning: false },
            { name: 'web', keepRunning: true },
          ],
        }),
      ),
    ).toEqual([400, 'bad_request']);
    expect(code(spec({ retention: { daily: 0, weekly: 0, monthly: 0 } }))).toEqual([400, 'bad_request']);
  });
  it('names what does not exist (404), in order destination, stacks, shares', () => {
    expect(code(spec({ destination: 'nope', shares: ['nope'] }))).toEqual([404, 'external_disk_not_found']);
    expect(code(spec({ stacks: [{ name: 'db', keepRunning: false }], shares: ['x'] }))).toEqual([
      404,
      'stack_not_found',
    ]);
    const e = checkPlan(spec({ shares: ['x'] }), facts);
    expect(e?.code).toBe('share_not_found');
    expect(e?.details).toEqual({ share: 'x' });
    expect(e?.message).toMatch(/GET \/api\/v1\/shares/);
  });
  it('refuses a disk that is not a backup destination, and a box without a backup passphrase (409)', () => {
    expect(code(spec({ destination: 'photos' }))).toEqual([409, 'not_a_backup_destination']);
    const e = checkPlan(spec(), { ...facts, passphraseSet: false });
    expect([e?.status, e?.code]).toEqual([409, 'backup_passphrase_required']);
    expect(e?.message).toMatch(/PUT \/api\/v1\/settings/);
  });
});
