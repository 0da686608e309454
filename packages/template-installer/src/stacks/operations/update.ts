/**
 * POST /stacks/:name/update: pull the stack's images, recreate the services whose image changed,
 * and wait for them to be healthy (or, without a health check, running). A service that turns
 * unhealthy, exits or keeps restarting within the wait is rolled back: every changed service's
 * reference is pointed at the image it ran before and recreated on it, and the operation fails
 * with `update_rolled_back` naming the service, what it did and the digests.
 */
import { AppError } from '@appliance/common';
import { stackLockKey } from '../../node/stack-store.ts';
import { composeServices } from '../core/services.ts';
import { parseStatus } from '../core/state.ts';
import type { EngineContainerSummary, StacksDeps } from '../ports.ts';
import { composeWithProgress, type OperationHooks } from './lifecycle.ts';
import { requireStack } from './state.ts';

export interface UpdateOptions {
  /** How long the recreated services may take to be healthy (default 120 s). */
  healthTimeoutSeconds?: number;
  /** Poll interval of the wait (default 1 s; tests shorten it). */
  pollMs?: number;
}

export interface ServiceUpdate {
  service: string;
  reference: string;
  fromImage: string;
  toImage: string;
  fromDigests: string[];
  toDigests: string[];
}

export interface UpdateResult {
  stack: string;
  /** Services recreated on a newer image (empty: every image was current). */
  updated: ServiceUpdate[];
}

const short = (id: string) => id.replace(/^sha256:/, '').slice(0, 12);
const digestsOf = (id: string, all: ReadonlyMap<string, readonly string[]>) =>
  [...new Set((all.get(id) ?? []).map((d) => d.slice(d.indexOf('@') + 1)))].sort();

/** `healthy`, `pending`, or why the service failed. */
function verdict(
  containers: readonly EngineContainerSummary[],
): { ok: true } | { ok: false; why: string } | null {
  if (containers.length === 0) return { ok: false, why: 'its container is gone' };
  for (const c of containers) {
    const { health, exitCode } = parseStatus(c.status);
    if (c.state === 'exited' || c.state === 'dead')
      return {
        ok: false,
        why: `its container ${c.name} exited${exitCode !== null ? ` with code ${exitCode}` : ''}`,
      };
    if (c.state === 'restarting') return { ok: false, why: `its container ${c.name} keeps restarting` };
    if (health === 'unhealthy') return { ok: false, why: `its container ${c.name} is unhealthy` };
    if (c.state !== 'running' || health === 'starting') return null;
  }
  return { ok: true };
}

async function waitHealthy(
  deps: StacksDeps,
  name: string,
  services: readonly string[],
  options: Required<UpdateOptions>,
  signal?: AbortSignal,
): Promise<{ service: string; why: string } | null> {
  const end = Date.now() + options.healthTimeoutSeconds * 1000;
  // a container without a health check counts once it stayed running for a few polls
  let steady = 0;
  for (;;) {
    if (signal?.aborted) return { service: services[0] ?? '', why: 'the update was cancelled' };
    const all = await deps.engine.containers(name);
    let pending = false;
    for (const s of services) {
      const v = verdict(all.filter((c) => c.service === s));
      if (v === null) pending = true;
      else if (!v.ok) return { service: s, why: v.why };
    }
    if (!pending && ++steady >= 3) return null;
    if (pending) steady = 0;
    if (Date.now() > end) {
      const s =
        services.find((x) => verdict(all.filter((c) => c.service === x)) === null) ?? services[0] ?? '';
      return { service: s, why: `it was not healthy within ${options.healthTimeoutSeconds} seconds` };
    }
    await new Promise((r) => setTimeout(r, options.pollMs));
  }
}

export async function updateStack(
  deps: StacksDeps,
  name: string,
  options: UpdateOptions = {},
  hooks: OperationHooks = {},
): Promise<UpdateResult> {
  const o: Required<UpdateOptions> = {
    healthTimeoutSeconds: options.healthTimeoutSeconds ?? 120,
    pollMs: options.pollMs ?? 1000,
  };
  return deps.locks.run(stackLockKey(name), async () => {
    const row = await requireStack(deps, name);
    const services = composeServices(row.compose);
    const before = await deps.engine.containers(name);
    const previous = new Map<string, { reference: string; image: string }>();
    for (const c of before) {
      if (previous.has(c.service)) continue;
      const reference = await deps.engine.containerReference(c.id);
      if (reference !== null) previous.set(c.service, { reference, image: c.imageId });
    }
    hooks.onOutput?.('pulling the images');
    await composeWithProgress(deps, name, services, ['pull'], 'pull the images of', hooks);
    const digests = await deps.engine.imageDigests();
    const changed: ServiceUpdate[] = [];
    for (const [service, p] of previous) {
      const now = await deps.engine.imageId(p.reference);
      if (now === null || now === p.image) continue;
      changed.push({
        service,
        reference: p.reference,
        fromImage: p.image,
        toImage: now,
        fromDigests: digestsOf(p.image, digests),
        toDigests: digestsOf(now, digests),
      });
    }
    if (changed.length === 0) {
      hooks.onOutput?.('every image is current: nothing to recreate');
      return { stack: name, updated: [] };
    }
    const names = changed.map((c) => c.service);
    hooks.onOutput?.(`recreating ${names.join(', ')} on the new images`);
    await composeWithProgress(deps, name, services, ['up', '-d', '--no-deps', ...names], 'recreate', hooks);
    hooks.onOutput?.(`waiting up to ${o.healthTimeoutSeconds} s for ${names.join(', ')} to be healthy`);
    const failed = await waitHealthy(deps, name, names, o, hooks.signal);
    if (failed === null) return { stack: name, updated: changed };
    hooks.onOutput?.(`${failed.service}: ${failed.why}; rolling back to the previous images`);
    for (const c of changed) await deps.engine.tagImage(c.fromImage, c.reference);
    await composeWithProgress(deps, name, services, ['up', '-d', '--no-deps', ...names], 'roll back', hooks);
    const back = await waitHealthy(deps, name, names, o);
    const f = changed.find((c) => c.service === failed.service) ?? changed[0]!;
    throw new AppError(
      502,
      'update_rolled_back',
      `The update of the stack ${name} was rolled back: the service ${failed.service} on the new image ${short(f.toImage)} failed (${failed.why}); ${names.join(', ')} ${back === null ? 'run again on' : 'were put back on, but are not healthy on,'} the previous image${names.length > 1 ? 's' : ''} ${changed.map((c) => short(c.fromImage)).join(', ')}. Read the stack's logs and the new version's release notes before trying again.`,
      {
        stack: name,
        service: failed.service,
        reason: failed.why,
        rolledBack: changed,
        healthyAfterRollback: back === null,
      },
    );
  });
}
