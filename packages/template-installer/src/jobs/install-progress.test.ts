/** The install's step reporter alone: spacing, the done event, and silence for a refusal. */
import { describe, expect, it } from 'vitest';
import { type InstallProgressData, installProgress } from './install-progress.ts';

function setup(interval: number) {
  const seen: { at: number; data: InstallProgressData }[] = [];
  let n = 0;
  const sink = {
    publish: (data: InstallProgressData) => seen.push({ at: Date.now(), data }),
    uuid: () => `op-${++n}`,
  };
  return { seen, progress: installProgress(sink, 'films', interval) };
}

describe('installProgress', () => {
  it('publishes nothing when no step was reported (a refusal), even on finish', async () => {
    const { seen, progress } = setup(50);
    await progress.finish(false);
    expect(seen).toEqual([]);
  });
  it('spaces the steps instead of dropping them, and ends with one done event', async () => {
    const { seen, progress } = setup(50);
    progress.onStep('record', 0, 4);
    progress.onStep('write_files', 1, 4);
    progress.onStep('compose_check', 2, 4);
    await progress.finish(false);
    expect(seen.map((x) => [x.data.progress['step'], x.data.done])).toEqual([
      ['record', false],
      ['write_files', false],
      ['compose_check', false],
      ['compose_check', true],
    ]);
    // a failure keeps the step it reached
    expect(seen.at(-1)!.data).toEqual({
      operationId: 'op-1',
      operation: 'template.install',
      target: 'films',
      done: true,
      progress: { step: 'compose_check', stepIndex: 3, steps: 4, ok: false },
    });
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.at - seen[i - 1]!.at).toBeGreaterThanOrEqual(45);
  });
});
