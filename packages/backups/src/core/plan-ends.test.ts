import { describe, expect, it } from 'vitest';
import { drillEnd, runEnd } from './plan-ends.ts';

describe('runEnd', () => {
  it('a success is the last success, and the first one only once', () => {
    expect(runEnd({ firstSuccessAt: null }, 'T2', 'j2', 'succeeded')).toEqual({
      lastRunJobId: 'j2',
      lastRunAt: 'T2',
      lastRunState: 'succeeded',
      lastSuccessAt: 'T2',
      firstSuccessAt: 'T2',
    });
    expect(runEnd({ firstSuccessAt: 'T1' }, 'T3', 'j3', 'succeeded').firstSuccessAt).toBe('T1');
  });

  it('a failed or cancelled run records the run and leaves the successes alone', () => {
    for (const outcome of ['failed', 'cancelled'])
      expect(runEnd({ firstSuccessAt: 'T1' }, 'T4', 'j4', outcome)).toEqual({
        lastRunJobId: 'j4',
        lastRunAt: 'T4',
        lastRunState: outcome,
      });
  });
});

describe('drillEnd', () => {
  it('records the drill and counts it', () => {
    expect(drillEnd({ drillCount: 2 }, 'T5', 'd1', 'failed')).toEqual({
      lastDrillJobId: 'd1',
      lastDrillAt: 'T5',
      lastDrillState: 'failed',
      drillCount: 3,
    });
  });
});
