// The 409 job_running sentence: a cancel is suggested only while the running job can be cancelled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../testing/sandbox.ts';
import { jobRunning } from './jobs.ts';

let s: Sandbox;
const steps: Array<() => void> = [];
const next = () => new Promise<void>((r) => steps.push(r));
const release = () => steps.shift()?.();

beforeAll(async () => {
  s = await startSandbox({ config: { logLevel: 'silent' } });
  s.server.ctx.jobs.register({
    type: 'test.two-phases',
    title: 'the test job',
    groups: ['test-group'],
    async run(job) {
      job.phase('prepare');
      await next();
      job.phase('copy', { cancellable: true });
      await next();
      return null;
    },
  });
});
afterAll(async () => {
  while (steps.length > 0) release();
  await s?.close();
});

const refusal = () => {
  try {
    s.server.ctx.jobs.assertFree(['test-group']);
  } catch (err) {
    return err as { status: number; code: string; message: string };
  }
  throw new Error('not refused');
};

describe('409 job_running', () => {
  it('says to follow and wait, not to cancel, while the job cannot be cancelled; offers the cancel once it can', async () => {
    const job = await s.server.ctx.jobs.start('test.two-phases', { target: '/mnt/test', actor: null });
    await expect.poll(() => steps.length).toBe(1);
    expect(refusal()).toMatchObject({
      status: 409,
      code: 'job_running',
      message: `The test job is running (/mnt/test). Follow it with GET /api/v1/jobs/${job.id} and try again once it has finished (it cannot be cancelled in its current phase).`,
    });
    release();
    await expect.poll(() => steps.length).toBe(1);
    expect(refusal().message).toBe(
      `The test job is running (/mnt/test). Follow it with GET /api/v1/jobs/${job.id}, or cancel it with DELETE /api/v1/jobs/${job.id}; then try again.`,
    );
    release();
    await s.server.ctx.jobs.wait(job.id);
    expect(() => s.server.ctx.jobs.assertFree(['test-group'])).not.toThrow();
  });

  it('says to wait for an operation that is not a job', () => {
    expect(
      jobRunning({ type: 'array.create', title: 'the array setup', target: '/mnt/user', jobId: null })
        .message,
    ).toBe('The array setup is running (/mnt/user). Wait for it to finish, then try again.');
  });
});
