/**
 * `followJob` resolves with the job as the API answers it: the figures its progress events add
 * (jobId, files, rate…) are drawn on stderr and never reach `--json` (issue 32: `--json array sync`
 * printed a `jobId` key the API's job has not).
 */
import { describe, expect, it } from 'vitest';
import type { Ctx } from './context.ts';
import { followJob, type Job } from './jobs.ts';

const base = {
  id: 'j1',
  type: 'parity.sync',
  target: '/mnt/user',
  phase: 'sync',
  percent: 10,
  bytesDone: 100,
  bytesTotal: 1000,
  etaSeconds: 9,
  cancellable: true,
  trigger: 'request',
  actor: 'local',
  params: { force: false },
  result: null,
  error: null,
  output: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: null,
} as const;

function fakeCtx(ended: Job): { ctx: Ctx; stderr: string[] } {
  const stderr: string[] = [];
  let delivered = false;
  const progress = {
    type: 'progress',
    data: {
      operationId: 'j1',
      done: false,
      progress: { jobId: 'j1', phase: 'sync', percent: 50, bytesDone: 500, files: 12, rate: 1e6 },
    },
  };
  const events = {
    connected: Promise.resolve(),
    close() {},
    async *[Symbol.asyncIterator]() {
      delivered = true;
      yield progress;
    },
  };
  const client = {
    events: () => events,
    // the row is read once the event was drawn: still running in the same phase, then ended
    get: async () => (delivered ? ended : { ...base, state: 'running' }),
  };
  const io = {
    stdout: { write: () => true },
    stderr: { isTTY: false, write: (s: string) => stderr.push(s) },
  };
  return { ctx: { io, client } as unknown as Ctx, stderr };
}

describe('followJob', () => {
  it("resolves with the API's job, without the keys only its progress events carry", async () => {
    const ended = {
      ...base,
      state: 'succeeded',
      phase: 'sync',
      percent: 100,
      result: { bytes: 1000 },
      endedAt: '2026-01-01T00:01:00.000Z',
    } as unknown as Job;
    const { ctx, stderr } = fakeCtx(ended);
    const job = await followJob(ctx, {
      what: 'the parity sync',
      start: async () => ({ ...base, state: 'running' }) as unknown as Job,
      pollMs: 5,
    });
    expect(job).toEqual(ended);
    expect(Object.keys(job)).not.toContain('jobId');
    expect(stderr.join('')).toMatch(/parity\.sync \/mnt\/user: sync 100%.*succeeded\n$/);
  });
});
