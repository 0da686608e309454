/**
 * Recovery after a restart: rows a stopped service left `running`/`queued` become `interrupted`; a
 * tool such a job recorded that still runs is asked to stop (SIGINT; SIGKILL after two minutes);
 * then the kind's own `recover` puts its work back in order. The job's groups are held meanwhile.
 */
import { isoMillis } from '@appliance/common';
import { groupsOf, type JobImplementation, type JobKind } from './definition.ts';
import type { RunnerPorts } from './ports.ts';
import { UNFINISHED_STATES } from './states.ts';
import type { JobError, JobView } from './types.ts';

/** How long a leftover tool gets to stop after SIGINT before SIGKILL. */
export const RECOVERY_WAIT_MS = 120_000;
/** How often a leftover tool is checked while it stops. */
export const RECOVERY_POLL_MS = 200;

interface Registered {
  kind: JobKind<never, unknown>;
  impl: JobImplementation<never, unknown>;
}

export async function recoverUnfinished(
  ports: RunnerPorts<unknown>,
  runner: {
    registered(type: string): Registered | undefined;
    hold(groups: readonly string[], target: string): () => void;
  },
): Promise<{ settled: Promise<void> }> {
  const stale = ports.store.inStates(UNFINISHED_STATES);
  if (stale.length === 0) return { settled: Promise.resolve() };
  const at = isoMillis(ports.clock.now());
  await ports.store.markInterrupted(
    stale.map((row) => {
      const title = runner.registered(row.type)?.kind.title ?? row.type;
      return {
        id: row.id,
        endedAt: at,
        error: {
          code: 'interrupted',
          message: `The service stopped while the ${title} ran${row.phase ? ` (phase "${row.phase}")` : ''}; the job did not finish. Start it again.`,
        },
      };
    }),
  );
  const settling: Promise<void>[] = [];
  for (const row of stale) {
    ports.logger.warn('job interrupted by a restart', { jobId: row.id, type: row.type, phase: row.phase });
    const reg = runner.registered(row.type);
    // a recorded tool that is already gone needs no stopping
    const leftover = row.pid !== null && ports.processes.startTimeSync(row.pid) !== null ? row.pid : null;
    if (leftover === null && !reg?.impl.recover) continue;
    // held at once, before anything can start a job of these groups; released when the tool is
    // gone and the job's own recovery has run
    const groups = reg ? groupsOf(reg.kind, row.params as never) : ['array'];
    const release = runner.hold(groups, row.id);
    settling.push(
      (async () => {
        if (leftover !== null) await stopLeftover(ports, leftover, row.id);
        if (reg?.impl.recover) await runRecovery(ports, reg, row.id);
      })().finally(release),
    );
  }
  return { settled: Promise.all(settling).then(() => undefined) };
}

/** A kind's own recovery of an interrupted job; its message becomes the job's error. */
async function runRecovery(ports: RunnerPorts<unknown>, reg: Registered, id: string): Promise<void> {
  const row = ports.store.get(id);
  if (!row || !reg.impl.recover) return;
  const { pid: _pid, ...view } = row;
  let error: JobError;
  let result: unknown = view.result;
  try {
    const r = await reg.impl.recover(view as JobView<never, unknown>);
    error = { code: 'interrupted', message: r.message, ...(r.details ? { details: r.details } : {}) };
    if (r.result !== undefined) result = r.result;
  } catch (err) {
    ports.logger.error('job recovery failed', { jobId: id, type: view.type, error: String(err) });
    error = {
      code: 'interrupted',
      message: `The service stopped while the ${reg.kind.title} ran${view.phase ? ` (phase "${view.phase}")` : ''}, and putting things back failed (${err instanceof Error ? err.message : String(err)}); see the service log, then restart the service to try again.`,
    };
  }
  await ports.store.settle(id, error, result);
}

async function stopLeftover(ports: RunnerPorts<unknown>, pid: number, jobId: string): Promise<void> {
  const { processes, clock, timers } = ports;
  const startedBefore = await processes.startTime(pid);
  if (startedBefore === null) return;
  try {
    if (!processes.signal(pid, 'SIGINT')) return;
    const deadline = clock.monotonicMs() + RECOVERY_WAIT_MS;
    while (clock.monotonicMs() < deadline) {
      if ((await processes.startTime(pid)) !== startedBefore) return;
      await timers.sleep(RECOVERY_POLL_MS);
    }
    processes.signal(pid, 'SIGKILL');
  } finally {
    ports.logger.info('stopped the tool an interrupted job left running', { jobId, pid });
  }
}
