/**
 * The stacks' containers through the Docker Engine API: `container_unhealthy` from Docker's health
 * status, and `container_update_available` when the image's registry holds a newer digest. Without
 * a stack, Docker is not asked at all.
 */
import {
  CONTAINER_KEY_PREFIX,
  digestsFor,
  evaluateContainers,
  evaluateImages,
  IMAGE_KEY_PREFIX,
  type ImageFacts,
  parseImageReference,
} from '../core/containers.ts';
import type { WatcherDefinition } from '../runner.ts';
import type { DockerPorts } from './ports.ts';

export function containersWatcher(ports: DockerPorts): WatcherDefinition {
  return {
    name: 'containers',
    events: ['container_unhealthy'],
    owns: [CONTAINER_KEY_PREFIX],
    intervalSeconds: () => ports.settings().intervals.containers,
    async observe() {
      const names = ports.stackNames();
      if (names.size === 0) return { conditions: [] };
      const docker = ports.docker();
      const list = (await docker.composeContainers()).filter((c) => names.has(c.stack));
      for (const c of list) {
        if (c.health !== 'unhealthy') continue;
        const inspected = await docker.inspectContainer(c.id);
        c.failingStreak = inspected?.failingStreak ?? null;
        c.lastOutput = inspected?.lastOutput ?? null;
      }
      return evaluateContainers(list);
    },
  };
}

export function imagesWatcher(ports: DockerPorts): WatcherDefinition {
  return {
    name: 'images',
    events: ['container_update_available'],
    owns: [IMAGE_KEY_PREFIX],
    intervalSeconds: () => ports.settings().intervals.images,
    async observe() {
      const names = ports.stackNames();
      if (names.size === 0) return { conditions: [] };
      const docker = ports.docker();
      const seen = new Set<string>();
      const registry = new Map<string, Promise<string>>();
      const facts: ImageFacts[] = [];
      for (const c of await docker.composeContainers()) {
        const thing = `${c.stack}/${c.service}`;
        if (!names.has(c.stack) || seen.has(thing)) continue;
        seen.add(thing);
        const inspected = await docker.inspectContainer(c.id);
        if (!inspected) continue;
        const base = {
          stack: c.stack,
          service: c.service,
          container: c.name,
          reference: inspected.reference,
        };
        if (parseImageReference(inspected.reference).digest !== null) continue; // pinned: never updated by tag
        const running = digestsFor(inspected.reference, (await docker.repoDigests(inspected.image)) ?? []);
        if (running.length === 0) {
          facts.push({
            ...base,
            runningDigests: [],
            registryDigest: null,
            why: 'the image was built locally or never pulled from a registry',
          });
          continue;
        }
        let asked = registry.get(inspected.reference);
        if (!asked) {
          asked = docker.registryDigest(inspected.reference);
          registry.set(inspected.reference, asked);
        }
        try {
          facts.push({ ...base, runningDigests: running, registryDigest: await asked });
        } catch (err) {
          facts.push({ ...base, runningDigests: running, registryDigest: null, why: (err as Error).message });
        }
      }
      return evaluateImages(facts);
    },
  };
}
