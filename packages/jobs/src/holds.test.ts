/**
 * Exclusion (09, issue 32 item 8): holds are exclusive or shared. Shared holds of a group run
 * together; an exclusive job or hold of the group is refused while any of them runs, and a shared
 * hold is refused while an exclusive one runs. The 409 sentence offers a cancel only when one is
 * possible now.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from './definition.ts';
import { jobRunning } from './holds.ts';
import { JobRunner } from './runner.ts';
import { memoryPorts } from './test-support/index.ts';

const exclusive = defineJob<Record<string, never>, null>({
  type: 'test.exclusive',
  title: 'the test job',
  groups: ['test-group'],
});

function setup() {
  const ports = memoryPorts();
  const runner = new JobRunner(ports);
  const steps: Array<() => void> = [];
  const next = () => new Promise<void>((r) => steps.push(r));
  runner.register(exclusive, {
    async run(job) {
      job.phase('prepare');
      await next();
      job.phase('copy', { cancellable: true });
      await next();
      return null;
    },
  });
  return { ports, runner, steps };
}

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
    const { runner, ports, steps } = setup();
    const a = runner.hold(['test-group'], { type: 'share_data.delete', target: 'media', mode: 'shared' });
    const b = runner.hold(['test-group'], { type: 'share_data.delete', target: 'photos', mode: 'shared' });
    expect(codeOf(() => runner.hold(['test-group'], { type: 'array.create', target: '/mnt/user' }))).toBe(
      'job_running',
    );
    await expect(runner.start(exclusive, {}, { target: 'x', actor: null })).rejects.toMatchObject({
      status: 409,
      code: 'job_running',
      details: { type: 'share_data.delete', target: 'media' },
    });
    expect(ports.store.rows.size).toBe(0);
    a();
    await expect(runner.start(exclusive, {}, { target: 'x', actor: null })).rejects.toMatchObject({
      details: { target: 'photos' },
    });
    b();
    expect(codeOf(() => runner.assertFree(['other-group']))).toBeNull();
    const job = await runner.start(exclusive, {}, { target: 'x', actor: null });
    expect(job.view.state).toBe('running');
    let refused: unknown = null;
    try {
      runner.hold(['test-group'], { type: 'share_data.delete', target: 'media', mode: 'shared' });
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({
      code: 'job_running',
      details: { jobId: job.view.id, type: 'test.exclusive' },
    });
    await ports.time.flush();
    steps.shift()!();
    await ports.time.flush();
    steps.shift()!();
    expect((await job.completed).state).toBe('succeeded');
    runner.hold(['test-group'], { type: 'share_data.delete', target: 'media', mode: 'shared' })();
    expect(codeOf(() => runner.assertFree(['test-group']))).toBeNull();
  });

  it('an exclusive hold refuses another exclusive one and a shared one', () => {
    const { runner } = setup();
    const release = runner.hold(['test-group'], { type: 'array.create', target: '/mnt/user' });
    expect(codeOf(() => runner.hold(['test-group'], { type: 'array.create', target: '/mnt/user' }))).toBe(
      'job_running',
    );
    expect(
      codeOf(() =>
        runner.hold(['test-group'], { type: 'share_data.delete', target: 'media', mode: 'shared' }),
      ),
    ).toBe('job_running');
    expect(runner.busy(['test-group'], 'shared')?.type).toBe('array.create');
    release();
    expect(runner.busy(['test-group'], 'shared')).toBeNull();
  });
});

describe('409 job_running', () => {
  it('says to follow and wait while the job cannot be cancelled; offers the cancel once it can', async () => {
    const { runner, ports, steps } = setup();
    const refusal = () => {
      try {
        runner.assertFree(['test-group']);
      } catch (err) {
        return err as { status: number; code: string; message: string };
      }
      throw new Error('not refused');
    };
    const job = await runner.start(exclusive, {}, { target: '/mnt/test', actor: null });
    await ports.time.flush();
    expect(refusal()).toMatchObject({
      status: 409,
      code: 'job_running',
      message: `The test job is running (/mnt/test). Follow it with GET /api/v1/jobs/${job.view.id} and try again once it has finished (it cannot be cancelled in its current phase).`,
    });
    steps.shift()!();
    await ports.time.flush();
    expect(refusal().message).toBe(
      `The test job is running (/mnt/test). Follow it with GET /api/v1/jobs/${job.view.id}, or cancel it with DELETE /api/v1/jobs/${job.view.id}; then try again.`,
    );
    steps.shift()!();
    await job.completed;
    expect(() => runner.assertFree(['test-group'])).not.toThrow();
  });

  it('says to wait for an operation that is not a job', () => {
    expect(
      jobRunning({ type: 'array.create', title: 'the array setup', target: '/mnt/user', jobId: null })
        .message,
    ).toBe('The array setup is running (/mnt/user). Wait for it to finish, then try again.');
  });
});
