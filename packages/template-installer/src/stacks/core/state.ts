/**
 * A stack's state from the Engine's container list (pure): each service of the compose file with
 * its containers (running, exited with its code, restarting, health), their images and digests,
 * the published ports, and whether an update is available.
 */
import type { StackTemplateRef } from '../../node/stack-store.ts';
import type { EngineContainerSummary, PublishedPort } from '../ports.ts';

export type ContainerHealth = 'healthy' | 'unhealthy' | 'starting' | null;

export interface ContainerState {
  id: string;
  name: string;
  /** The Engine's state: running, exited, restarting, created, paused, dead, removing. */
  state: string;
  /** Exit code of an exited container, else null. */
  exitCode: number | null;
  health: ContainerHealth;
  status: string;
  image: string;
  imageId: string;
  /** `sha256:…` digests the image is known by in registries (empty for a local image). */
  digests: string[];
  ports: PublishedPort[];
}

export interface ServiceState {
  name: string;
  containers: ContainerState[];
  /** The watcher's message when the registry holds a newer image, else null. */
  updateAvailable: string | null;
}

/**
 * `running`: every service has a running container; `stopped`: containers exist, none running;
 * `partial`: some run; `not_created`: no container at all (installed, never started, or removed).
 * `restarting` and `unhealthy` win when any container is so.
 */
export type StackStatus = 'running' | 'partial' | 'stopped' | 'not_created' | 'restarting' | 'unhealthy';

export interface StackState {
  name: string;
  template: StackTemplateRef | null;
  installedAt: string;
  directory: string;
  status: StackStatus;
  services: ServiceState[];
  updateAvailable: boolean;
}

const EXITED = /^Exited \((-?\d+)\)/;
const HEALTH = /\((healthy|unhealthy|health: starting)\)/;

/** Exit code and health from the Engine's status text. */
export function parseStatus(status: string): { exitCode: number | null; health: ContainerHealth } {
  const exited = EXITED.exec(status);
  const h = HEALTH.exec(status)?.[1];
  return {
    exitCode: exited ? Number(exited[1]) : null,
    health: h === undefined ? null : h === 'health: starting' ? 'starting' : (h as ContainerHealth),
  };
}

const imageDigests = (repoDigests: readonly string[]): string[] => {
  const out = new Set<string>();
  for (const d of repoDigests) {
    const at = d.indexOf('@');
    if (at >= 0) out.add(d.slice(at + 1));
  }
  return [...out].sort();
};

export function stackState(input: {
  name: string;
  template: StackTemplateRef | null;
  installedAt: string;
  directory: string;
  /** Services of the compose file, in file order. */
  services: readonly string[];
  containers: readonly EngineContainerSummary[];
  digests: ReadonlyMap<string, readonly string[]>;
  updates: ReadonlyMap<string, string>;
}): StackState {
  const names = [...input.services];
  for (const c of input.containers) if (!names.includes(c.service)) names.push(c.service);
  const services: ServiceState[] = names.map((service) => ({
    name: service,
    containers: input.containers
      .filter((c) => c.service === service)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((c) => {
        const { exitCode, health } = parseStatus(c.status);
        return {
          id: c.id.slice(0, 12),
          name: c.name,
          state: c.state,
          exitCode: c.state === 'exited' ? exitCode : null,
          health: c.state === 'running' ? health : null,
          status: c.status,
          image: c.image,
          imageId: c.imageId,
          digests: imageDigests(input.digests.get(c.imageId) ?? []),
          ports: [...c.ports].sort((a, b) => a.published - b.published || a.hostIp.localeCompare(b.hostIp)),
        };
      }),
    updateAvailable: input.updates.get(service) ?? null,
  }));
  return {
    name: input.name,
    template: input.template,
    installedAt: input.installedAt,
    directory: input.directory,
    status: overall(services),
    services,
    updateAvailable: services.some((s) => s.updateAvailable !== null),
  };
}

function overall(services: readonly ServiceState[]): StackStatus {
  const all = services.flatMap((s) => s.containers);
  if (all.length === 0) return 'not_created';
  if (all.some((c) => c.state === 'restarting')) return 'restarting';
  if (all.some((c) => c.health === 'unhealthy')) return 'unhealthy';
  const running = services.filter((s) => s.containers.some((c) => c.state === 'running')).length;
  if (running === 0) return 'stopped';
  return running === services.length ? 'running' : 'partial';
}
