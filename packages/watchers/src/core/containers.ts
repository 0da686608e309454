/**
 * `container_unhealthy` from Docker's own health status of the stacks' containers, and
 * `container_update_available` when the image's registry holds a newer digest than the one the
 * container runs. Keyed by stack and service (a container recreated for the same service is the
 * same thing).
 */
import type { Condition, Note, Observation } from './model.ts';

export interface ContainerFacts {
  /** Container name without the leading `/`. */
  name: string;
  /** The compose project (the stack) and service. */
  stack: string;
  service: string;
  /** Docker's health status, or null when the image defines no health check. */
  health: 'healthy' | 'unhealthy' | 'starting' | null;
  /** Consecutive failed checks, and what the last check printed (unhealthy only). */
  failingStreak?: number | null;
  lastOutput?: string | null;
}

export const CONTAINER_KEY_PREFIX = 'container:';
export const IMAGE_KEY_PREFIX = 'image:';
const thing = (stack: string, service: string) => `${stack}/${service}`;
const oneLine = (s: string, n = 300) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

/**
 * A container whose health check has not answered yet (`starting`: just started or restarted, a
 * backup's stop and start included) is unobserved: a condition it held stays as it is, neither
 * cleared nor raised again, until Docker knows its health.
 */
export function evaluateContainers(containers: readonly ContainerFacts[]): Observation {
  const conditions: Condition[] = [];
  const unobserved: string[] = [];
  for (const c of containers) {
    if (c.health === 'starting') unobserved.push(`${CONTAINER_KEY_PREFIX}${thing(c.stack, c.service)}`);
    if (c.health !== 'unhealthy') continue;
    const streak = c.failingStreak ?? null;
    const output = c.lastOutput ? oneLine(c.lastOutput) : '';
    conditions.push({
      key: `${CONTAINER_KEY_PREFIX}${thing(c.stack, c.service)}`,
      eventType: 'container_unhealthy',
      subject: `container ${c.name} (stack ${c.stack}, service ${c.service})`,
      value: 'unhealthy',
      title: `Stack ${c.stack}: container ${c.name} is unhealthy`,
      message: `The container ${c.name} of the stack ${c.stack} (service ${c.service}) is unhealthy: its health check failed${streak ? ` ${streak} time${streak === 1 ? '' : 's'} in a row` : ''}${output ? `; the last check said: "${output}"` : ''}. The app may not answer: look at its log (docker logs ${c.name}) and restart the stack; if it keeps failing, check its settings and free disk space.`,
    });
  }
  return { conditions, unobserved };
}

export interface ImageFacts {
  stack: string;
  service: string;
  container: string;
  /** The image reference the container was created from (`registry/repo:tag`). */
  reference: string;
  /** Digests (`sha256:…`) the running image is known by in the reference's repository. */
  runningDigests: string[];
  /**
   * The digest the registry has for the reference now; `null` when it could not be asked (an image
   * built locally, pinned by digest, or a registry that did not answer: `why` says which).
   */
  registryDigest: string | null;
  why?: string;
}

const short = (digest: string) => digest.replace(/^sha256:/, '').slice(0, 12);

export function evaluateImages(images: readonly ImageFacts[]): Observation {
  const conditions: Condition[] = [];
  const unobserved: string[] = [];
  const notes: Note[] = [];
  for (const i of images) {
    const key = `${IMAGE_KEY_PREFIX}${thing(i.stack, i.service)}`;
    if (i.registryDigest === null) {
      unobserved.push(key);
      notes.push({
        subject: `${i.reference} (stack ${i.stack})`,
        message: `not checked: ${i.why ?? 'no registry digest'}`,
      });
      continue;
    }
    if (i.runningDigests.includes(i.registryDigest)) continue;
    const running = i.runningDigests[0];
    conditions.push({
      key,
      eventType: 'container_update_available',
      subject: `${i.reference} (stack ${i.stack}, service ${i.service})`,
      value: `sha256:${short(i.registryDigest)}`,
      title: `Stack ${i.stack}: a newer image of ${i.reference}`,
      message: `A newer image is available for the stack ${i.stack} (service ${i.service}, container ${i.container}): the registry has ${i.reference} as sha256:${short(i.registryDigest)}, the container runs ${running ? `sha256:${short(running)}` : 'an image the registry does not know'}. To update, pull the image and recreate the stack's containers (docker compose pull, then docker compose up -d, in the stack's folder); read the app's release notes first.`,
    });
  }
  return { conditions, unobserved, notes };
}

/**
 * A reference with its implicit parts made explicit, as Docker reads it: `busybox` →
 * `docker.io/library/busybox:latest`. Returns the repository and the tag (null when pinned by digest).
 */
export function parseImageReference(ref: string): {
  repository: string;
  tag: string | null;
  digest: string | null;
} {
  let rest = ref;
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | null = null;
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > slash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const first = rest.split('/')[0] ?? '';
  const hasRegistry =
    rest.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  const repository = hasRegistry ? rest : `docker.io/${rest.includes('/') ? rest : `library/${rest}`}`;
  return { repository, tag: digest === null ? (tag ?? 'latest') : tag, digest };
}

/** The digests of an image's `RepoDigests` (`repo@sha256:…`) that belong to a reference's repository. */
export function digestsFor(reference: string, repoDigests: readonly string[]): string[] {
  const { repository } = parseImageReference(reference);
  return repoDigests
    .map((d) => {
      const at = d.indexOf('@');
      return at < 0
        ? null
        : { repository: parseImageReference(d.slice(0, at)).repository, digest: d.slice(at + 1) };
    })
    .filter((d): d is { repository: string; digest: string } => d !== null && d.repository === repository)
    .map((d) => d.digest);
}
