import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENDED_STATES, type JobState, type JobView } from '@appliance/jobs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../context.ts';
import { type OpenedDatabase, openDatabase } from '../../db/open.ts';
import { WriteQueue } from '../../db/write-queue.ts';
import { AuditLog } from '../../services/audit.ts';
import { createJobStore } from './store.ts';

const view = (n: number, type: string, state: JobState, createdAt: string): JobView => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type,
  target: 'array',
  state,
  phase: null,
  percent: null,
  bytesDone: null,
  bytesTotal: null,
  etaSeconds: null,
  cancellable: false,
  trigger: 'schedule',
  actor: 'system',
  params: {},
  result: null,
  error: null,
  output: [],
  createdAt,
  startedAt: createdAt,
  endedAt: state === 'running' ? null : createdAt,
});

describe('the jobs table store: prune (on a real database file)', () => {
  let dir: string;
  let opened: OpenedDatabase;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobs-store-'));
    opened = openDatabase(path.join(dir, 'state.db'));
  });
  afterEach(() => {
    opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('deletes ended jobs older than the cutoff beyond the newest 20 of their type; a running job stays', async () => {
    const now = new Date('2026-06-01T00:00:00.000Z');
    const ctx = {
      db: opened.db,
      writes: new WriteQueue(opened.sqlite, opened.db),
      audit: new AuditLog(() => now, opened.sqlite),
    } as unknown as AppContext;
    const store = createJobStore(ctx);
    const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
    const audit = { actor: null, operation: 'test', target: 'array', details: {} };
    // 25 old ended syncs (days 1–25), an old running one (day 1), 3 old ended scrubs
    for (let d = 1; d <= 25; d++) await store.insert(view(d, 'parity.sync', 'succeeded', at(d)), audit);
    await store.insert(view(100, 'parity.sync', 'running', at(1)), audit);
    for (let d = 1; d <= 3; d++) await store.insert(view(200 + d, 'parity.scrub', 'failed', at(d)), audit);

    const deleted = await store.prune(new Date(Date.UTC(2026, 2, 1)), 20, ENDED_STATES);

    // the newest 20 syncs are days 6–25; of the older ones the 5 ended go and the running one
    // stays; the scrubs are within their type's 20
    expect(deleted).toBe(5);
    const left = opened.sqlite
      .prepare("select id, state from jobs where type = 'parity.sync' order by created_at, id")
      .all() as Array<{ id: string; state: string }>;
    expect(left.filter((j) => j.state === 'running')).toHaveLength(1);
    expect(left.filter((j) => j.state === 'succeeded').map((j) => Number(j.id.slice(-12)))).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 6),
    );
    expect(opened.sqlite.prepare("select count(*) as n from jobs where type = 'parity.scrub'").get()).toEqual(
      {
        n: 3,
      },
    );
  });
});
