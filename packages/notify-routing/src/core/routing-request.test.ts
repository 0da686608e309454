import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { parseRoutingUpdate, unknownChannelError } from './routing-request.ts';

const C1 = '3f0c5e1a-9d1b-4c55-8a0e-2b7f3c1d9e00';
const C2 = '0b0c5e1a-9d1b-4c55-8a0e-2b7f3c1d9e01';

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseRoutingUpdate', () => {
  it('accepts a valid body and lowercases the ids, keeping request order', () => {
    expect(
      parseRoutingUpdate('disk_offline', { severity: 'warning', channelIds: [C1, C2.toUpperCase()] }),
    ).toEqual({
      eventType: 'disk_offline',
      severity: 'warning',
      channelIds: [C1, C2],
    });
    expect(parseRoutingUpdate('sync_succeeded', { severity: 'info', channelIds: [] }).channelIds).toEqual([]);
  });

  it('checks the event type first (check 6) and reports it at path eventType', () => {
    const error = refusal(() => parseRoutingUpdate('not_an_event', { severity: 'bogus' }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('bad_request');
    expect(error.details).toEqual({ issues: [expect.objectContaining({ path: 'eventType' })] });
    expect(refusal(() => parseRoutingUpdate('Disk_Offline', {})).details?.['issues']).toHaveLength(1);
  });

  it('reports one issue per body problem (check 7)', () => {
    const error = refusal(() =>
      parseRoutingUpdate('disk_offline', { severity: 'fatal', channelIds: [C1, 'nope', 7], colour: 'red' }),
    );
    const issues = error.details?.['issues'] as Array<{ path: string; message: string }>;
    expect(issues.map((i) => i.path)).toEqual(['severity', 'channelIds.1', 'channelIds.2', 'colour']);
    expect(issues[3]!.message).toContain('unknown field');
  });

  it('refuses missing fields, wrong types and non-objects', () => {
    const missing = refusal(() => parseRoutingUpdate('disk_offline', {})).details?.['issues'];
    expect(missing).toEqual([
      { path: 'severity', message: 'severity is required' },
      { path: 'channelIds', message: 'channelIds is required' },
    ]);
    expect(
      refusal(() => parseRoutingUpdate('disk_offline', { severity: 'info', channelIds: null })).code,
    ).toBe('bad_request');
    for (const body of [null, [], 'x', 42, [{ severity: 'info', channelIds: [] }]]) {
      expect(refusal(() => parseRoutingUpdate('disk_offline', body)).details).toEqual({
        issues: [{ path: '', message: 'the body must be a JSON object' }],
      });
    }
  });

  it('refuses more than 100 ids, and caps the issue list for 10,000 bad ids', () => {
    const many = Array.from(
      { length: 101 },
      (_, i) => `3f0c5e1a-9d1b-4c55-8a0e-${String(i).padStart(12, '0')}`,
    );
    expect(
      refusal(() => parseRoutingUpdate('disk_offline', { severity: 'info', channelIds: many })).details,
    ).toEqual({
      issues: [{ path: 'channelIds', message: 'channelIds may hold at most 100 ids' }],
    });
    const junk = Array.from({ length: 10_000 }, () => 'x');
    const issues = refusal(() => parseRoutingUpdate('disk_offline', { severity: 'info', channelIds: junk }))
      .details?.['issues'] as unknown[];
    expect(issues.length).toBeLessThanOrEqual(20);
  });

  it('refuses duplicates after lowercasing, at the index of the second occurrence (check 8)', () => {
    const error = refusal(() =>
      parseRoutingUpdate('disk_offline', { severity: 'critical', channelIds: [C2, C1, C1.toUpperCase()] }),
    );
    expect(error.details).toEqual({ issues: [{ path: 'channelIds.2', message: 'duplicate channel id' }] });
  });
});

describe('unknownChannelError', () => {
  it('lists the unknown ids in request order', () => {
    const error = unknownChannelError([C2, C1, 'ffffffff-0000-4000-8000-000000000000'], [C1]);
    expect(error?.status).toBe(400);
    expect(error?.code).toBe('notification_unknown_channel');
    expect(error?.details).toEqual({ unknownChannelIds: [C2, 'ffffffff-0000-4000-8000-000000000000'] });
    expect(unknownChannelError([C1], [C1, C2])).toBeNull();
  });
});
