/**
 * Recovery after a restart, on a manual clock: rows left running become interrupted; a leftover
 * tool is stopped (SIGINT, SIGKILL after two minutes) while the job's groups are held; the kind's
 * own `recover` writes the message; a failed recovery says so.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from './definition.ts';
import { RECOVERY_WAIT_MS } from './recovery.ts';
import { JobRunner } from './runner.ts';
import { memoryPorts } from './test-support/index.ts';
import type { JobView } from './types.ts';

interface DiskParams {
  disk: string;
}
const diskJob = defineJob<DiskParams, { slot: string }>({
  type: 'test.disk',
  title: 'disk upgrade',
  groups: (p) => ['array', `disk:${p.disk}`],
});

function leftBehind(
  ports: ReturnType<typeof memoryPorts>,
  id: string,
  pid: number | null,
  type = 'test.disk',
) {
  const view: JobView = {
    id,
    type,
    target: 'd1',
    state: 'running',
    phase: 'copy',
    percent: 40,
    bytesDone: null,
    bytesTotal: null,
    etaSeconds: 12,
    cancellable: true,
    trigger: 'request',
    actor: 'alice',
    params: { disk: 'd1' },
    result: null,
    error: null,
    output: [],
    createdAt: '2025-12-31T23:00:00.000Z',
    startedAt: '2025-12-31T23:00:00.000Z',
    endedAt: null,
  };
  ports.store.rows.set(id, { ...view, pid });
}

describe('recover()', () => {
  it('records a job left running as interrupted, naming its phase', async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    runner.register(diskJob, { run: async () => ({ slot: 'd1' }) });
    leftBehind(ports, 'old', null);
    const { settled } = await runner.recover();
    await settled;
    expect(ports.store.get('old')).toMatchObject({
      state: 'interrupted',
      cancellable: false,
      etaSeconds: null,
      endedAt: '2026-01-01T00:00:00.000Z',
      error: {
        code: 'interrupted',
        message:
          'The service stopped while the disk upgrade ran (phase "copy"); the job did not finish. Start it again.',
      },
    });
    expect(runner.busy(['array'])).toBeNull();
  });

  it('stops a leftover tool with SIGINT, holding the groups until it is gone', async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    runner.register(diskJob, { run: async () => ({ slot: 'd1' }) });
    ports.processes.startTimes.set(4242, '1000');
    ports.processes.stopsOnSigint = false;
    leftBehind(ports, 'old', 4242);
    const { settled } = await runner.recover();
    await ports.time.flush();
    expect(ports.processes.signals).toEqual([{ pid: 4242, signal: 'SIGINT' }]);
    expect(runner.busy(['disk:d1'])).toMatchObject({ type: 'job.recovery', target: 'old' });
    // the tool exits on its own a second later
    await ports.time.advance(1_000);
    ports.processes.startTimes.delete(4242);
    await ports.time.advance(200);
    await settled;
    expect(runner.busy(['array'])).toBeNull();
    expect(ports.processes.signals).toHaveLength(1);
  });

  it('kills a leftover tool that ignores SIGINT for two minutes', async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    runner.register(diskJob, { run: async () => ({ slot: 'd1' }) });
    ports.processes.startTimes.set(4242, '1000');
    ports.processes.stopsOnSigint = false;
    leftBehind(ports, 'old', 4242);
    const { settled } = await runner.recover();
    await ports.time.advance(RECOVERY_WAIT_MS - 1_000);
    expect(ports.processes.signals.map((s) => s.signal)).toEqual(['SIGINT']);
    await ports.time.advance(2_000);
    await settled;
    expect(ports.processes.signals.map((s) => s.signal)).toEqual(['SIGINT', 'SIGKILL']);
    expect(runner.busy(['array'])).toBeNull();
  });

  it("runs the kind's recover with the typed view and writes its message and result", async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    const seen: string[] = [];
    runner.register(diskJob, {
      run: async () => ({ slot: 'd1' }),
      recover: async (view) => {
        seen.push(view.params.disk);
        expect(runner.busy(['array'])?.type).toBe('job.recovery');
        return {
          message: 'The slot is back on the old disk d1.',
          result: { slot: 'd1' },
          details: { disk: 'd1' },
        };
      },
    });
    leftBehind(ports, 'old', null);
    const { settled } = await runner.recover();
    await settled;
    expect(seen).toEqual(['d1']);
    expect(ports.store.get('old')).toMatchObject({
      result: { slot: 'd1' },
      error: {
        code: 'interrupted',
        message: 'The slot is back on the old disk d1.',
        details: { disk: 'd1' },
      },
    });
  });

  it('says the recovery failed when it throws, and logs it', async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    runner.register(diskJob, {
      run: async () => ({ slot: 'd1' }),
      recover: async () => {
        throw new Error('mount failed');
      },
    });
    leftBehind(ports, 'old', null);
    await (await runner.recover()).settled;
    expect(ports.store.get('old')?.error?.message).toBe(
      'The service stopped while the disk upgrade ran (phase "copy"), and putting things back failed (mount failed); see the service log, then restart the service to try again.',
    );
    expect(ports.logger.lines.some((l) => l.level === 'error' && l.message === 'job recovery failed')).toBe(
      true,
    );
  });

  it('a job of an unknown type with a leftover tool holds the array while the tool stops', async () => {
    const ports = memoryPorts();
    const runner = new JobRunner(ports);
    ports.processes.startTimes.set(7, 'x');
    leftBehind(ports, 'old', 7, 'gone.type');
    const { settled } = await runner.recover();
    expect(runner.busy(['array'])).toMatchObject({ type: 'job.recovery' });
    await ports.time.flush();
    await settled;
    expect(ports.store.get('old')?.error?.message).toContain('the gone.type ran');
    expect(runner.busy(['array'])).toBeNull();
  });
});
