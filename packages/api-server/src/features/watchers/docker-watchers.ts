/**
 * The stacks' containers through the Docker Engine API (the daemon of DOCKER_HOST, read at each
 * cycle as the apps feature does): `container_unhealthy` from Docker's health status, and
 * `container_update_available` when the image's registry holds a newer digest. Without a stack,
 * Docker is not asked at all.
 */
import { engineSocket } from '@appliance/template-installer';
import {
  CONTAINER_KEY_PREFIX,
  createDockerProbe,
  digestsFor,
  evaluateContainers,
  evaluateImages,
  IMAGE_KEY_PREFIX,
  type ImageFacts,
  parseImageReference,
} from '@appliance/watchers';
import type { AppContext } from '../../context.ts';
import { stacks } from '../../db/schema.ts';
import type { WatcherDefinition } from '../../services/watchers.ts';
import { readWatcherSettings } from './settings.ts';

const stackNames = (ctx: AppContext) =>
  new Set(
    ctx.db
      .select({ name: stacks.name })
      .from(stacks)
      .all()
      .map((r) => r.name),
  );
const probe = () => createDockerProbe({ socketPath: engineSocket(process.env['DOCKER_HOST']) });

export function containersWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'containers',
    events: ['container_unhealthy'],
    owns: [CONTAINER_KEY_PREFIX],
    intervalSeconds: () => readWatcherSettings(ctx.db).intervals.containers,
    async observe() {
      const names = stackNames(ctx);
      if (names.size === 0) return { conditions: [] };
      const docker = probe();
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

export function imagesWatcher(ctx: AppContext): WatcherDefinition {
  return {
    name: 'images',
    events: ['container_update_available'],
    owns: [IMAGE_KEY_PREFIX],
    intervalSeconds: () => readWatcherSettings(ctx.db).intervals.images,
    async observe() {
      const names = stackNames(ctx);
      if (names.size === 0) return { conditions: [] };
      const docker = probe();
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
