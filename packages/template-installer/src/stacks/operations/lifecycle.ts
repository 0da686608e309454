/**
 * Start, stop and restart a stack with the compose tool (`up -d`, `stop`, `restart`) under the
 * stack's lock, reporting progress per service. A start (or a restart of a stopped stack) is
 * refused before anything runs when one of its ports is held by something else.
 */
import { stackLockKey } from '../../node/stack-store.ts';
import { portConflicts } from '../core/port-conflict.ts';
import { ServiceProgress, parseStep } from '../core/progress.ts';
import { composeServices } from '../core/services.ts';
import type { StackState } from '../core/state.ts';
import type { StacksDeps } from '../ports.ts';
import { composeFailed, portInUse } from './errors.ts';
import { readStackState, requireStack } from './state.ts';

export interface OperationHooks {
  /** A service changed: what the tool does to it and the operation's percent. */
  onService?: (p: { service: string; action: string; percent: number }) => void;
  /** Each line the tool printed. */
  onOutput?: (line: string) => void;
  onSpawn?: (pid: number) => void;
  signal?: AbortSignal;
}

export type LifecycleAction = 'start' | 'stop' | 'restart';

/** Refuses (409 port_in_use, naming each port and its holder) when another holder has a port. */
export async function assertPortsFree(deps: StacksDeps, name: string): Promise<void> {
  const [ports, containers, listeners] = await Promise.all([
    deps.publishedPorts(name),
    deps.engine.containers(),
    deps.listeners(),
  ]);
  if (ports.length === 0) return;
  const conflicts = portConflicts({ stack: name, ports, containers, listeners });
  if (conflicts.length > 0) throw portInUse(name, conflicts);
}

/**
 * The check before a start, or a restart of a stack that is not running: its ports must be free
 * of other holders. Callers run it before accepting the request (a refusal starts nothing) and the
 * operation runs it again under the lock.
 */
export async function checkPortsFor(
  deps: StacksDeps,
  name: string,
  action: LifecycleAction,
  containers?: readonly { state: string }[],
): Promise<void> {
  if (action === 'stop') return;
  const own = containers ?? (await deps.engine.containers(name));
  if (action === 'start' || !own.some((c) => c.state === 'running')) await assertPortsFree(deps, name);
}

/** Runs one compose command with per-service progress; a non-zero exit → 502 compose_failed. */
export async function composeWithProgress(
  deps: StacksDeps,
  name: string,
  services: readonly string[],
  args: string[],
  what: string,
  hooks: OperationHooks,
): Promise<void> {
  const progress = new ServiceProgress(services);
  const r = await deps.compose.run(name, args, {
    onLine: (line) => {
      hooks.onOutput?.(line);
      const step = parseStep(line, name, services);
      if (step) hooks.onService?.(progress.step(step));
    },
    ...(hooks.signal ? { signal: hooks.signal } : {}),
    ...(hooks.onSpawn ? { onSpawn: hooks.onSpawn } : {}),
  });
  if (r.exitCode !== 0) throw composeFailed(name, what, `${r.stdout}\n${r.stderr}`);
}

export async function runLifecycle(
  deps: StacksDeps,
  name: string,
  action: LifecycleAction,
  hooks: OperationHooks = {},
): Promise<StackState> {
  return deps.locks.run(stackLockKey(name), async () => {
    const row = await requireStack(deps, name);
    const services = composeServices(row.compose);
    if (action === 'stop') {
      await composeWithProgress(deps, name, services, ['stop'], 'stop', hooks);
      return readStackState(deps, name);
    }
    const before = await deps.engine.containers(name);
    await checkPortsFor(deps, name, action, before);
    if (action === 'restart' && before.length > 0)
      await composeWithProgress(deps, name, services, ['restart'], 'restart', hooks);
    else await composeWithProgress(deps, name, services, ['up', '-d'], 'start', hooks);
    return readStackState(deps, name);
  });
}
