/** The flat record of a job for a SQL table, and the job views of the routes. */
import { AppError } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import { fromRecord, interruptedFields, liveFields, toRecord } from './record.ts';
import type { JobView } from './types.ts';
import { jobPage, requireJob } from './views.ts';

const view: JobView = {
  id: 'j1',
  type: 'parity.sync',
  target: '/mnt/user',
  state: 'running',
  phase: 'sync',
  percent: 40,
  bytesDone: 4,
  bytesTotal: 10,
  etaSeconds: 12,
  cancellable: true,
  trigger: 'schedule',
  actor: 'system',
  params: { disks: ['d1'] },
  result: null,
  error: null,
  output: ['line 1', 'line 2'],
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:01.000Z',
  endedAt: null,
};

describe('job record', () => {
  it('round-trips a job through its record (JSON text, 0/1)', () => {
    const record = toRecord(view);
    expect(record.cancellable).toBe(1);
    expect(record.params).toBe('{"disks":["d1"]}');
    expect(record.result).toBeNull();
    expect(fromRecord({ ...record, pid: 42 })).toEqual({ ...view, pid: 42 });
    const ended = { ...view, state: 'failed' as const, error: { code: 'x', message: 'm' }, result: { n: 1 } };
    expect(fromRecord({ ...toRecord(ended), pid: null })).toEqual({ ...ended, pid: null });
  });

  it('saves only the live fields while running; the end, result and error and a cleared pid at the end', () => {
    const live = liveFields(view, false);
    expect(Object.keys(live).sort()).toEqual(
      ['bytesDone', 'bytesTotal', 'cancellable', 'etaSeconds', 'output', 'percent', 'phase', 'state'].sort(),
    );
    const final = liveFields({ ...view, state: 'succeeded', result: { bytes: 3 }, endedAt: 'e' }, true);
    expect(final).toMatchObject({ result: '{"bytes":3}', error: null, endedAt: 'e', pid: null });
  });

  it('an interrupted job is not cancellable, has no ETA and keeps its error', () => {
    expect(interruptedFields({ endedAt: 'e', error: { code: 'interrupted', message: 'm' } })).toEqual({
      state: 'interrupted',
      cancellable: 0,
      etaSeconds: null,
      endedAt: 'e',
      error: '{"code":"interrupted","message":"m"}',
    });
  });
});

describe('job views', () => {
  const jobs = ['a', 'b', 'c'].map((id) => ({ ...view, id }));
  const reader = {
    get: (id: string) => jobs.find((j) => j.id === id) ?? null,
    list: (q: { limit: number }) => jobs.slice(0, q.limit),
  };

  it('a full page names the next page by its last id; a short page ends the list', () => {
    expect(jobPage(reader, { limit: 2 }).nextBefore).toBe('b');
    expect(jobPage(reader, { limit: 5 })).toEqual({ jobs, nextBefore: null });
  });

  it('an unknown job is refused job_not_found', () => {
    expect(requireJob(reader, 'a').id).toBe('a');
    try {
      requireJob(reader, 'zz');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('job_not_found');
    }
  });
});
