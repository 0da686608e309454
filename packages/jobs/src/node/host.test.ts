/**
 * The runner and the scheduler built for this host (`hostJobRunner`, `hostScheduler`): a job runs on
 * Node's timers to its end, its timestamps read from the wall clock the caller gives (the service's
 * settable clock), its ETA from the system's monotonic clock; a due schedule runs on Node's timers at
 * the caller's wall time.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../definition.ts';
import { MemoryJobStore, MemoryLogger, MemoryScheduleStore, RecordingEvents } from '../test-support/index.ts';
import { hostJobRunner, hostScheduler } from './index.ts';

const AT = new Date('2026-03-01T10:00:00.000Z');
const copyJob = defineJob<{ files: number }, { copied: number }>({
  type: 'test.copy',
  title: 'test copy',
  groups: ['array'],
});

describe('hostJobRunner', () => {
  it('runs a job on Node timers to its end, stamped with the given wall clock', async () => {
    const store = new MemoryJobStore();
    const runner = hostJobRunner<string>({
      store,
      clock: { now: () => AT },
      events: new RecordingEvents(),
      logger: new MemoryLogger(),
      newId: () => 'job-1',
      actorName: (actor) => actor ?? 'system',
    });
    runner.register(copyJob, {
      async run(job, params) {
        job.progress({ percent: 50 });
        await new Promise((resolve) => setTimeout(resolve, 5)); // a real timer, no manual time
        return { copied: params.files };
      },
    });
    const { view, completed } = await runner.start(
      copyJob,
      { files: 3 },
      { target: '/mnt/user', actor: 'alice' },
    );
    expect(view.state).toBe('running');
    const ended = await completed;
    expect(ended.state).toBe('succeeded');
    expect(ended.result).toEqual({ copied: 3 });
    expect(ended.createdAt).toBe(AT.toISOString());
    expect(ended.endedAt).toBe(AT.toISOString());
    expect(store.get('job-1')?.state).toBe('succeeded');
    expect(store.audits[0]?.actor).toBe('alice');
  });

  it('reads the system clock when none is given', async () => {
    const runner = hostJobRunner<string>({
      store: new MemoryJobStore(),
      events: new RecordingEvents(),
      logger: new MemoryLogger(),
      newId: () => 'job-2',
      actorName: () => 'system',
    });
    runner.register(copyJob, { run: async (_job, params) => ({ copied: params.files }) });
    const before = Date.now();
    const ended = await (await runner.start(copyJob, { files: 1 }, { target: 't', actor: null })).completed;
    expect(Date.parse(ended.createdAt)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(ended.createdAt)).toBeLessThanOrEqual(Date.now());
  });
});

describe('hostScheduler', () => {
  it('runs a due schedule once on Node timers and records it at the given wall time', async () => {
    const store = new MemoryScheduleStore();
    const scheduler = hostScheduler({ store, clock: { now: () => AT }, logger: new MemoryLogger() });
    const runs: string[] = [];
    const ran = new Promise<void>((resolve) =>
      scheduler.register({
        name: 'nightly',
        nextDue: (last) => (last ? null : new Date('2026-03-01T03:00:00.000Z')),
        run: async (due) => {
          runs.push(due.toISOString());
          resolve();
          return 'job-9';
        },
      }),
    );
    scheduler.start(10);
    await ran;
    await new Promise((resolve) => setTimeout(resolve, 30)); // a few more ticks: nothing is due again
    await scheduler.stop();
    expect(runs).toEqual(['2026-03-01T03:00:00.000Z']);
    expect(store.last('nightly')).toMatchObject({ lastRunAt: AT.toISOString(), jobId: 'job-9' });
  });
});
