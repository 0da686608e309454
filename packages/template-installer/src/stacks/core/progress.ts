/**
 * Per-service progress from the compose tool's output (pure). docker-compose v1 prints
 * `Starting web_app_1 ... done`; v2 with `--progress plain` prints `Container web-app-1  Started`.
 */
export interface ServiceStep {
  service: string;
  /** What the tool did, lower case: creating, starting, stopping, restarting, recreating, removing, pulling… */
  action: string;
  done: boolean;
}

const V1 =
  /^(Creating|Starting|Stopping|Restarting|Recreating|Removing|Pulling|Killing)\s+(\S+)\s+\.\.\.\s*(done|error)?\s*$/;
const V2 =
  /^\s*Container\s+(\S+)\s+(Creating|Created|Starting|Started|Stopping|Stopped|Restarting|Restarted|Recreate|Recreated|Removing|Removed|Running|Waiting|Healthy)\s*$/;
const V2_DONE = new Set([
  'Created',
  'Started',
  'Stopped',
  'Restarted',
  'Recreated',
  'Removed',
  'Running',
  'Healthy',
]);

/** The service of a container name `<project>_<service>_<n>` (v1) or `<project>-<service>-<n>` (v2). */
export function serviceOf(container: string, project: string, services: readonly string[]): string | null {
  for (const sep of ['_', '-']) {
    const prefix = `${project}${sep}`;
    if (!container.startsWith(prefix)) continue;
    const rest = container.slice(prefix.length);
    const m = new RegExp(`^(.+)${sep === '_' ? '_' : '-'}\\d+$`).exec(rest);
    const name = m ? m[1]! : rest;
    if (services.includes(name)) return name;
  }
  // `Pulling app ... done` (v1) names the service itself
  return services.includes(container) ? container : null;
}

export function parseStep(line: string, project: string, services: readonly string[]): ServiceStep | null {
  const text = line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').trim();
  const v1 = V1.exec(text);
  if (v1) {
    const service = serviceOf(v1[2]!, project, services);
    return service ? { service, action: v1[1]!.toLowerCase(), done: v1[3] === 'done' } : null;
  }
  const v2 = V2.exec(text);
  if (v2) {
    const service = serviceOf(v2[1]!, project, services);
    return service ? { service, action: v2[2]!.toLowerCase(), done: V2_DONE.has(v2[2]!) } : null;
  }
  return null;
}

/** Services done so far → percent of the operation. */
export class ServiceProgress {
  private readonly done = new Set<string>();
  private readonly services: readonly string[];
  constructor(services: readonly string[]) {
    this.services = services;
  }
  step(s: ServiceStep): { percent: number; service: string; action: string } {
    if (s.done) this.done.add(s.service);
    const total = Math.max(1, this.services.length);
    return {
      percent: Math.min(99, Math.round((this.done.size / total) * 100)),
      service: s.service,
      action: s.action,
    };
  }
  get finished(): string[] {
    return [...this.done];
  }
}
