/**
 * Exclusion in the job runner (09, issue 32 item 8): holds are exclusive or shared. Shared holds of a
 * group run together; an exclusive job or hold of the group is refused while any of them runs, and
 * a shared hold is refused while an exclusive one runs. Through the real server's runner, with a
 * test job type whose run waits until the test lets it end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../testing/sandbox.ts';

let s: Sandbox;
/** The test job's run waits for this; `finish()` lets it end. */
let finish!: () => void;
const finished = new Promise<void>((resolve) => {
  finish = resolve;
});

beforeAll(async () => {
  s = await startSandbox();
  s.server.ctx.jobs.register({
    type: 'test.exclusive',
    title: 'test job',
    groups: ['test-group'],
    run: async () => {
      await finished;
      return null;
    },
  });
}, 60_000);

afterAll(async () => {
  await s?.close();
});

const codeOf = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
};

describe('shared and exclusive holds', () => {
  it('shared holds run together and keep exclusive jobs and holds out until the last one ends', async () => {
    const jobs = s.server.ctx.jobs;
    const a = jobs.hold(['test-group'], { type: 'share_data.delete', target: 'media', mode: 'shared' });
    const b = jobs.hold(['test-group'], { type: 'share_data.delete', target: 'photos', mode: 'shared' });
    expect(codeOf(() => jobs.hold(['test-group'], { type: 'array.create', target: '/mnt/user' }))).toBe(
      'job_running',
    );
    await expect(jobs.start('test.exclusive', { target: 'x', actor: null })).rejects.toMatchObject({
      status: 409,
      code: 'job_running',
      details: { type: 'share_data.delete', target: 'media' },
    });
    a();
    // still held by the other shared holder
    await expect(jobs.start('test.exclusive', { target: 'x', actor: null })).rejects.toMatchObject({
      code: 'job_running',
      details: { target: 'photos' },
    });
    b();
    // other groups were never affected
    expect(codeOf(() => jobs.assertFree(['other-group']))).toBeNull();
    const job = await jobs.start('test.exclusive', { target: 'x', actor: null });
    expect(job.state).toBe('running');
    // an exclusive job keeps shared holders out, naming itself
    let refused: unknown = null;
    try {
      jobs.hold(['test-group'], { type: 'share_data.delete', target: 'media', mode: 'shared' });
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({
      code: 'job_running',
      details: { jobId: job.id, type: 'test.exclusive' },
    });
    finish();
    expect((await jobs.wait(job.id)).state).toBe('succeeded');
    const c = jobs.hold(['test-group'], { type: 'share_data.delete', target: 'media', mode: 'shared' });
    c();
    expect(codeOf(() => jobs.assertFree(['test-group']))).toBeNull();
  });

  it('an exclusive hold refuses another exclusive one and a shared one', () => {
    const jobs = s.server.ctx.jobs;
    const release = jobs.hold(['test-group'], { type: 'array.create', target: '/mnt/user' });
    expect(codeOf(() => jobs.hold(['test-group'], { type: 'array.create', target: '/mnt/user' }))).toBe(
      'job_running',
    );
    expect(
      codeOf(() => jobs.hold(['test-group'], { type: 'share_data.delete', target: 'media', mode: 'shared' })),
    ).toBe('job_running');
    expect(jobs.busy(['test-group'], 'shared')?.type).toBe('array.create');
    release();
    expect(jobs.busy(['test-group'], 'shared')).toBeNull();
  });
});
