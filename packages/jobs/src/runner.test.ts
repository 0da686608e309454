/**
 * The runner on a manual clock and in-memory ports: a typed start, phases and progress (ETA,
 * throttled writes), the output tail, cancel where the phase allows it, the end states, shutdown,
 * the import lock and a failed write.
 */
import { AppError, refuse } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { defineJob } from './definition.ts';
import { JobRunner } from './runner.ts';
import { memoryPorts } from './test-support/index.ts';
import { JobBlocked, OUTPUT_LINES } from './types.ts';

interface SyncParams {
  disks: string[];
}
interface SyncResult {
  bytes: number;
}
const syncJob = defineJob<SyncParams, SyncResult>({
  type: 'test.sync',
  title: 'test sync',
  groups: ['array'],
});

/** A runner whose sync job waits at each `gate()` until the test calls `step()`. */
function setup(
  run?: (
    job: Parameters<Parameters<JobRunner['register']>[1]['run']>[0],
    p: SyncParams,
  ) => Promise<SyncResult>,
) {
  const ports = memoryPorts();
  const runner = new JobRunner(ports);
  const waiting: Array<() => void> = [];
  const gate = () => new Promise<void>((r) => waiting.push(r));
  const step = async () => {
    await ports.time.flush();
    waiting.shift()!();
    await ports.time.flush();
  };
  runner.register(syncJob, {
    run:
      run ??
      (async (job, params) => {
        job.phase('sync', { cancellable: true });
        await gate();
        return { bytes: params.disks.length * 100 };
      }),
  });
  return { ports, runner, gate, step, waiting };
}

describe('JobRunner', () => {
  it('starts a typed job, records it with its audit entry, and ends it succeeded with its typed result', async () => {
    const { ports, runner, step } = setup();
    const job = await runner.start(syncJob, { disks: ['d1', 'd2'] }, { target: '/mnt/user', actor: 'alice' });
    expect(job.view).toMatchObject({
      id: 'job-001',
      type: 'test.sync',
      state: 'running',
      actor: 'alice',
      params: { disks: ['d1', 'd2'] },
    });
    expect(ports.store.audits[0]).toMatchObject({
      actor: 'alice',
      operation: 'job.test.sync',
      target: '/mnt/user',
      details: { jobId: 'job-001', trigger: 'request', disks: ['d1', 'd2'] },
    });
    await step();
    const ended = await job.completed;
    const bytes: number | undefined = ended.result?.bytes;
    expect(bytes).toBe(200);
    expect(ended).toMatchObject({
      state: 'succeeded',
      percent: 100,
      etaSeconds: 0,
      error: null,
      endedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(ports.store.get(job.view.id)).toMatchObject({
      state: 'succeeded',
      result: { bytes: 200 },
      pid: null,
    });
    expect(runner.latest(syncJob)?.result).toEqual({ bytes: 200 });
    expect(ports.events.events.at(-1)?.data).toMatchObject({ done: true, progress: { state: 'succeeded' } });
  });

  it('refuses a kind that was not registered, and a start during shutdown with 503 shutting_down', async () => {
    const { runner } = setup();
    const other = defineJob<SyncParams, SyncResult>({ type: 'test.other', title: 'x', groups: [] });
    await expect(runner.start(other, { disks: [] }, { target: 't', actor: null })).rejects.toThrow(
      /not registered/,
    );
    await runner.stop();
    await expect(runner.start(syncJob, { disks: [] }, { target: 't', actor: null })).rejects.toMatchObject({
      status: 503,
      code: 'shutting_down',
    });
  });

  it('computes an ETA from elapsed time on the clock and writes progress at most every 5 s', async () => {
    const { ports, runner, gate, step } = setup(async (job) => {
      job.phase('copy');
      await gate();
      job.progress({ percent: 25, files: 3 });
      await gate();
      job.progress({ percent: 50 });
      await gate();
      return { bytes: 1 };
    });
    const job = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    await ports.time.advance(10_000);
    await step();
    expect(runner.get(job.view.id)).toMatchObject({ percent: 25, etaSeconds: 30 });
    expect(ports.events.events.at(-1)?.data.progress).toMatchObject({
      percent: 25,
      etaSeconds: 30,
      files: 3,
    });
    expect(ports.store.get(job.view.id)?.percent).toBe(25); // 10 s since the last write
    await ports.time.advance(1_000);
    await step();
    expect(runner.get(job.view.id)?.percent).toBe(50);
    expect(ports.store.get(job.view.id)?.percent).toBe(25); // 1 s since the last write: not written yet
    await step();
    expect(ports.store.get(job.view.id)?.percent).toBe(100); // the end is always written
  });

  it('keeps the last OUTPUT_LINES lines of output, each cut to 1000 characters', async () => {
    const { runner, ports } = setup(async (job) => {
      for (let i = 0; i < OUTPUT_LINES + 5; i += 1) job.output(`line ${i}`);
      job.output('x'.repeat(1500));
      return { bytes: 0 };
    });
    const job = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    const ended = await job.completed;
    expect(ended.output).toHaveLength(OUTPUT_LINES);
    expect(ended.output[0]).toBe('line 6');
    expect(ended.output.at(-1)).toBe(`${'x'.repeat(1000)}…`);
  });

  it('cancels only in a cancellable phase; a cancelled job ends cancelled with the cancel audited', async () => {
    const { ports, runner, gate, step } = setup(async (job) => {
      job.phase('prepare');
      await gate();
      job.phase('copy', { cancellable: true });
      await new Promise((_, reject) =>
        job.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
      return { bytes: 0 };
    });
    const job = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    await expect(runner.cancel(job.view.id, 'bob')).rejects.toMatchObject({
      status: 409,
      code: 'job_not_cancellable',
      message:
        'The test sync cannot be cancelled during its "prepare" phase without leaving the array in between; wait for it to finish.',
    });
    await step();
    await runner.cancel(job.view.id, 'bob');
    const ended = await job.completed;
    expect(ended).toMatchObject({
      state: 'cancelled',
      error: { code: 'cancelled', message: 'The test sync was cancelled; it stopped cleanly.' },
    });
    expect(ports.store.audits.at(-1)).toMatchObject({
      actor: 'bob',
      operation: 'job.cancel',
      details: { phase: 'copy' },
    });
    await expect(runner.cancel(job.view.id, 'bob')).rejects.toMatchObject({ code: 'job_not_running' });
    await expect(runner.cancel('nope', 'bob')).rejects.toMatchObject({ status: 404, code: 'job_not_found' });
  });

  it('a cancel that comes after the job said its work is done leaves it succeeded', async () => {
    const { ports, runner, gate, step } = setup(async (job) => {
      job.phase('sync', { cancellable: true });
      await gate();
      job.completed();
      await gate();
      return { bytes: 7 };
    });
    const job = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    await step();
    // the tool completed; the cancel arrives during the bookkeeping that follows
    await runner.cancel(job.view.id, null);
    await step();
    expect(await job.completed).toMatchObject({ state: 'succeeded', result: { bytes: 7 }, error: null });
  });

  it('ends failed with the refusal (AppError or a package Refusal), or internal with a log line for anything else; blocked with its result', async () => {
    let throwWhat: unknown = new AppError(409, 'array_degraded', 'A disk is missing.', { disk: 'd2' });
    const { ports, runner } = setup(async () => {
      throw throwWhat;
    });
    const a = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    expect((await a.completed).error).toEqual({
      code: 'array_degraded',
      message: 'A disk is missing.',
      details: { disk: 'd2' },
    });
    throwWhat = refuse('sync_failed', 'snapraid sync failed; see the output.');
    const r = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    expect((await r.completed).error).toEqual({
      code: 'sync_failed',
      message: 'snapraid sync failed; see the output.',
    });
    throwWhat = new Error('boom');
    const b = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    expect(await b.completed).toMatchObject({
      state: 'failed',
      error: { code: 'internal', message: 'The test sync failed unexpectedly; see the service log.' },
    });
    expect(
      ports.logger.lines.some((l) => l.message === 'job failed' && l.fields?.error === 'Error: boom'),
    ).toBe(true);
    throwWhat = new JobBlocked({ code: 'too_many_deletes', message: 'Too many deletes.' }, { bytes: 0 });
    const c = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    expect(await c.completed).toMatchObject({
      state: 'blocked',
      result: { bytes: 0 },
      error: { code: 'too_many_deletes' },
    });
  });

  it('runs the follow-up on the ended view before the end is recorded: whoever sees the job ended sees what the follow-up did', async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    const seen: Array<{
      followUp: string;
      live: string | undefined;
      row: string | undefined;
      done: boolean;
    }> = [];
    let recorded = 'nothing';
    runner.register(syncJob, {
      run: async () => ({ bytes: 1 }),
      after: async (view) => {
        // the view it gets is the ended one; the runner and its store still read running
        seen.push({
          followUp: view.state,
          live: runner.get(view.id)?.state,
          row: ports.store.rows.get(view.id)?.state,
          done: ports.events.events.some((e) => (e.data as { done?: boolean }).done === true),
        });
        recorded = `state of ${view.id} recorded`;
      },
    });
    const job = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    const ended = await job.completed;
    expect(seen).toEqual([{ followUp: 'succeeded', live: 'running', row: 'running', done: false }]);
    expect(recorded).toBe('state of job-001 recorded');
    expect(ended.state).toBe('succeeded');
    expect(ports.store.rows.get('job-001')?.state).toBe('succeeded');
    expect(ports.events.events.filter((e) => (e.data as { done?: boolean }).done === true)).toHaveLength(1);
  });

  it('at shutdown a running job is aborted and recorded interrupted', async () => {
    const { ports, runner } = setup(async (job) => {
      await new Promise((_, reject) =>
        job.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
      return { bytes: 0 };
    });
    const job = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    await ports.time.flush();
    await runner.stop();
    expect(ports.store.get(job.view.id)).toMatchObject({
      state: 'interrupted',
      error: {
        code: 'interrupted',
        message: 'The service stopped while the test sync ran; it was stopped cleanly. Start it again.',
      },
    });
  });

  it('holds the import lock while it runs, and refuses (writing nothing) while an import runs', async () => {
    let entered = 0;
    let importing = false;
    const ports = memoryPorts();
    const runner = new JobRunner({
      ...ports,
      gate: {
        enter: () => {
          if (importing) throw new AppError(409, 'import_in_progress', 'An import runs.');
          entered += 1;
          return () => {
            entered -= 1;
          };
        },
      },
    });
    runner.register(syncJob, { run: async () => ({ bytes: 0 }) });
    importing = true;
    await expect(runner.start(syncJob, { disks: [] }, { target: 't', actor: null })).rejects.toMatchObject({
      code: 'import_in_progress',
    });
    expect(ports.store.rows.size).toBe(0);
    importing = false;
    const job = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    expect(entered).toBe(1);
    await ports.time.flush();
    await job.completed;
    expect(entered).toBe(0);
  });

  it('frees its groups before it reads as ended; its after step runs outside them', async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    const seen: Array<string | null> = [];
    runner.register(syncJob, {
      run: async () => ({ bytes: 0 }),
      after: () => {
        seen.push(runner.busy(['array'])?.type ?? null);
      },
    });
    const { view, completed } = await runner.start(syncJob, { disks: [] }, { target: 't', actor: null });
    const original = ports.store.save.bind(ports.store);
    ports.store.save = async (v, final) => {
      if (final) seen.push(runner.busy(['array'])?.type ?? null);
      return original(v, final);
    };
    await ports.time.flush();
    expect((await completed).state).toBe('succeeded');
    expect(seen).toEqual([null, null]);
    expect(runner.get(view.id)?.state).toBe('succeeded');
  });

  it('a start whose row cannot be written releases its groups and the lock', async () => {
    const { ports, runner } = setup();
    ports.store.failNextInsert = new Error('disk full');
    await expect(runner.start(syncJob, { disks: [] }, { target: 't', actor: null })).rejects.toThrow(
      'disk full',
    );
    expect(runner.busy(['array'])).toBeNull();
  });

  it('lists newest first with paging, filters by type and state, and prunes old ended jobs', async () => {
    const { ports, runner } = setup(async () => ({ bytes: 0 }));
    for (let i = 0; i < 3; i += 1) {
      const j = await runner.start(syncJob, { disks: [] }, { target: `t${i}`, actor: null });
      await ports.time.flush();
      await j.completed;
      await ports.time.advance(1000);
    }
    expect(runner.list({ limit: 2 }).map((j) => j.target)).toEqual(['t2', 't1']);
    expect(runner.list({ limit: 2, before: 'job-002' }).map((j) => j.target)).toEqual(['t0']);
    expect(runner.list({ limit: 5, state: 'failed' })).toEqual([]);
    expect(await runner.prune(new Date('2030-01-01T00:00:00Z'), 1)).toBe(2);
    expect(runner.list({ limit: 5 }).map((j) => j.target)).toEqual(['t2']);
  });
});
