/** The stack routes' requests on in-memory ports: the checks before a job, the job started, the values edit. */
import { AppError, Refusal } from '@appliance/common';
import { describe, expect, it } from 'vitest';
import {
  memoryAppsPorts,
  memoryContainer,
  memoryStackJobPorts,
  memoryStacksDeps,
} from '../test-support/index.ts';
import { editStackValues, requestStackRemoval, requestStackUpdate, startStackJob } from './stack-requests.ts';

async function setup(options: Parameters<typeof memoryStacksDeps>[0] = {}) {
  const stacks = memoryStacksDeps(options);
  await stacks.addStack('web');
  const jobPorts = memoryStackJobPorts(stacks);
  return { stacks, jobPorts, ports: memoryAppsPorts(jobPorts) };
}

const code = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  return e instanceof Refusal ? e.code : e;
};

describe('startStackJob', () => {
  it('starts the kind with the stack as target and its audit operation', async () => {
    const { ports } = await setup();
    const view = await startStackJob(ports, 'stop', 'web');
    expect(view.id).toBe('job-1');
    expect(ports.started).toEqual([
      { type: 'stack.stop', params: { stack: 'web' }, target: 'stacks/web', auditOperation: 'stack.stop' },
    ]);
  });

  it('refuses an unknown stack, a running backup of it and a job of it, starting nothing', async () => {
    const { ports, jobPorts } = await setup();
    expect(await code(startStackJob(ports, 'stop', 'nope'))).toBe('stack_not_found');
    ports.busy.add('stack:web');
    expect(await code(startStackJob(ports, 'stop', 'web'))).toBe('job_running');
    ports.busy.clear();
    jobPorts.backups.runningOf = () => ({ id: 'b1' });
    expect(await code(startStackJob(ports, 'restart', 'web'))).toBe('stack_backup_running');
    expect(ports.started).toEqual([]);
  });

  it('refuses a start whose port another holder has (port_in_use); a stop is not checked', async () => {
    const { ports } = await setup({
      containers: [memoryContainer('other', 'running', [8080])],
      published: { web: [8080] },
    });
    expect(await code(startStackJob(ports, 'start', 'web'))).toBe('port_in_use');
    expect(await code(startStackJob(ports, 'restart', 'web'))).toBe('port_in_use');
    await startStackJob(ports, 'stop', 'web');
    expect(ports.started.map((s) => s.type)).toEqual(['stack.stop']);
  });
});

describe('requestStackRemoval and requestStackUpdate', () => {
  it('a removal needs the exact phrase for what is removed', async () => {
    const { ports } = await setup();
    expect(await code(requestStackRemoval(ports, 'web', { confirm: 'DELETE web', removeData: true }))).toBe(
      'confirmation_mismatch',
    );
    await requestStackRemoval(ports, 'web', { confirm: 'DELETE web AND ITS DATA', removeData: true });
    expect(ports.started[0]?.params).toEqual({
      stack: 'web',
      confirm: 'DELETE web AND ITS DATA',
      removeData: true,
    });
  });

  it('an update with a snapshot names the plan that holds the stack, or is refused when none does', async () => {
    const { ports, jobPorts } = await setup();
    expect(await code(requestStackUpdate(ports, 'web', { snapshot: true }))).toBe('no_backup_plan');
    jobPorts.backups.planCovering = () => ({ name: 'nightly', destination: 'usb' });
    await requestStackUpdate(ports, 'web', { snapshot: true, healthTimeoutSeconds: 30 });
    await requestStackUpdate(ports, 'web', {});
    expect(ports.started.map((s) => s.params)).toEqual([
      { stack: 'web', healthTimeoutSeconds: 30, snapshotPlan: 'nightly' },
      { stack: 'web' },
    ]);
  });
});

describe('editStackValues', () => {
  it('audits the change and restarts a running stack whose inputs changed', async () => {
    const { ports } = await setup({ containers: [memoryContainer('web')] });
    ports.stub.changed = ['PORT'];
    const result = await editStackValues(ports, 'web', { values: { PORT: '8081' } });
    expect(result.changed).toEqual(['PORT']);
    expect(result.restart?.id).toBe('job-1');
    expect(ports.started.map((s) => s.type)).toEqual(['stack.start']);
    expect(ports.audits).toEqual([
      { operation: 'stack.values', target: 'stacks/web', outcome: 'ok', details: { changed: ['PORT'] } },
    ]);
  });

  it('restarts nothing when nothing changed or the stack is stopped', async () => {
    const { ports } = await setup({ containers: [memoryContainer('web', 'exited')] });
    ports.stub.changed = ['PORT'];
    expect((await editStackValues(ports, 'web', {})).restart).toBeNull();
    ports.stub.changed = [];
    expect((await editStackValues(ports, 'web', {})).restart).toBeNull();
    expect(ports.started).toEqual([]);
  });

  it('a refusal of the request writes no audit row; a failure of the service does', async () => {
    const { ports } = await setup();
    ports.stub.changed = new AppError(400, 'invalid_value', 'bad');
    expect(await code(editStackValues(ports, 'web', {}))).toBe('invalid_value');
    expect(ports.audits).toEqual([]);
    ports.stub.changed = new Error('disk full');
    await expect(editStackValues(ports, 'web', {})).rejects.toThrow('disk full');
    expect(ports.audits).toEqual([
      { operation: 'stack.values', target: 'stacks/web', outcome: 'failed', details: { code: 'internal' } },
    ]);
  });

  it('is refused before the installer runs while a job of the stack runs', async () => {
    const { ports } = await setup();
    ports.busy.add('stack:web');
    expect(await code(editStackValues(ports, 'web', {}))).toBe('job_running');
    expect(ports.stub.calls).toEqual([]);
  });
});
