/** The retention of ended jobs, on a manual clock: pruned at start and daily, a failure retried. */
import { describe, expect, it } from 'vitest';
import { KEEP_PER_TYPE, PRUNE_INTERVAL_MS, retentionCutoff, startRetention } from './retention.ts';
import { ManualTime } from './test-support/index.ts';

describe('startRetention', () => {
  it('prunes what is older than 90 days, keeping 20 per type, at once and then every day', async () => {
    const time = new ManualTime();
    const calls: Array<{ olderThan: string; keep: number | undefined }> = [];
    const runner = {
      prune: async (olderThan: Date, keep?: number) => {
        calls.push({ olderThan: olderThan.toISOString(), keep });
        return 0;
      },
    };
    const stop = startRetention(runner, time, time);
    expect(calls).toEqual([{ olderThan: retentionCutoff(time.now()).toISOString(), keep: KEEP_PER_TYPE }]);
    expect(time.now().getTime() - retentionCutoff(time.now()).getTime()).toBe(90 * 24 * 3600 * 1000);
    await time.advance(PRUNE_INTERVAL_MS);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.olderThan).toBe(retentionCutoff(time.now()).toISOString());
    stop();
    await time.advance(PRUNE_INTERVAL_MS * 3);
    expect(calls).toHaveLength(2);
  });

  it('a failed prune is swallowed and tried again the next day', async () => {
    const time = new ManualTime();
    let n = 0;
    const stop = startRetention(
      {
        prune: async () => {
          n += 1;
          if (n === 1) throw new Error('database is locked');
          return 1;
        },
      },
      time,
      time,
    );
    await time.flush();
    await time.advance(PRUNE_INTERVAL_MS);
    expect(n).toBe(2);
    stop();
  });
});
