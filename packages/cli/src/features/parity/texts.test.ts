/**
 * The words of `appliance array parity|sync|scrub` (issue 32): the true count of a blocked sync's
 * removed files, no "the next sync protects them" while syncs are blocked, "1 error". The commands
 * themselves run against real snapraid in test/parity.system.test.ts.
 */
import type { ResponseOf } from '@appliance/client';
import { describe, expect, it } from 'vitest';
import { blockedText, errorCount, statusText } from './index.ts';

type Status = ResponseOf<'get', '/disks/array/parity'>;

const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

function status(over: Partial<Status>): Status {
  return {
    configured: true,
    parity: 'in_sync',
    lastSync: null,
    lastSuccessfulSyncAt: null,
    changes: null,
    blockedSince: null,
    lastScrub: null,
    oldestScrubAgeDays: null,
    unscrubbedPercent: null,
    running: null,
    next: { sync: null, scrub: null },
    ...over,
  } as Status;
}

describe('a blocked sync', () => {
  it('says the first 20 of the true number removed, not of the 100 paths the job keeps', () => {
    const paths = Array.from({ length: 100 }, (_, i) => `d1/file-${i}`);
    const text = blockedText({ changes: { removed: 198 }, removedPaths: paths });
    expect(text.split('\n')[0]).toBe('Removed since the last sync (first 20 of 198):');
    expect(text).toContain(
      '  d1/file-19\n  … and 178 more (GET /api/v1/disks/array/parity/diff lists them all)\n',
    );
    expect(text).not.toContain('d1/file-20');
    expect(text.endsWith('appliance array sync --force\n')).toBe(true);
  });

  it('lists all of a few without a count', () => {
    const text = blockedText({ changes: { removed: 3 }, removedPaths: ['a', 'b', 'c'] });
    expect(text).toBe(
      'Removed since the last sync:\n  a\n  b\n  c\nParity was kept as it was; if these deletions are intended: appliance array sync --force\n',
    );
  });
});

describe('appliance array parity', () => {
  const changes = { added: 0, removed: 60, updated: 0, moved: 0, copied: 0, restored: 0, at: hourAgo() };

  it('does not promise that the next sync protects pending changes while syncs are blocked', () => {
    const blocked = statusText(
      status({ parity: 'changes_pending', changes, blockedSince: hourAgo() } as Partial<Status>),
    );
    expect(blocked).toMatch(
      /^parity: +changes pending, NOT protected: the deletion guard blocks every sync \(see "blocked since"\)$/m,
    );
    expect(blocked).not.toContain('the next sync protects them');
    const pending = statusText(status({ parity: 'changes_pending', changes } as Partial<Status>));
    expect(pending).toMatch(/^parity: +changes pending \(the next sync protects them\)$/m);
  });

  it('counts the last scrub\'s errors in words: "1 error", "2 errors", "no errors"', () => {
    const scrub = (dataErrors: number, ioErrors: number) =>
      statusText(
        status({
          lastScrub: {
            endedAt: hourAgo(),
            state: 'succeeded',
            percent: 8,
            olderThanDays: 10,
            dataErrors,
            ioErrors,
            fileErrors: 0,
          },
        } as Partial<Status>),
      );
    expect(scrub(1, 0)).toMatch(/^last scrub: .*older than 10 days, 1 error$/m);
    expect(scrub(1, 1)).toMatch(/, 2 errors$/m);
    expect(scrub(0, 0)).toMatch(/, no errors$/m);
    expect([0, 1, 7].map(errorCount)).toEqual(['no errors', '1 error', '7 errors']);
  });
});
