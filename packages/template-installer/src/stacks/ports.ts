/**
 * What the stack operations need from the host (issue 35): the Docker Engine, the compose tool, the
 * host's listening sockets, the update conditions and the app-data folders. The api-server wires
 * the real adapters (node/); unit tests pass fakes.
 */
import type { Locks, StackRow, StackStore } from '../node/stack-store.ts';

/** One published port of a container as the Engine reports it. */
export interface PublishedPort {
  hostIp: string;
  published: number;
  target: number;
  protocol: string;
}

/** A compose container from the Engine's container list. */
export interface EngineContainerSummary {
  id: string;
  /** Without the leading `/`. */
  name: string;
  project: string;
  service: string;
  /** `created`, `running`, `paused`, `restarting`, `removing`, `exited`, `dead`. */
  state: string;
  /** The Engine's status text: `Up 3 minutes (healthy)`, `Exited (1) 2 seconds ago`. */
  status: string;
  /** The reference the container was created from. */
  image: string;
  imageId: string;
  ports: PublishedPort[];
}

export interface LogLine {
  /** RFC 3339 with nanoseconds, as the Engine stamps it. */
  time: string;
  service: string;
  container: string;
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface LogsOptions {
  tail?: number;
  /** Unix seconds. */
  since?: number;
  follow: boolean;
  signal?: AbortSignal;
}

export interface StackEngine {
  /** Compose containers (all states); of one project when given. */
  containers(project?: string): Promise<EngineContainerSummary[]>;
  /** Image id → `RepoDigests` of every image the Engine holds. */
  imageDigests(): Promise<Map<string, string[]>>;
  /** The reference a container was created from (`Config.Image`; the list shows an id once the tag moved). */
  containerReference(id: string): Promise<string | null>;
  /** The id of the image a reference names locally, or null when there is none. */
  imageId(reference: string): Promise<string | null>;
  /** Points `reference` (`repo:tag`) at the image `id` (a rollback). */
  tagImage(id: string, reference: string): Promise<void>;
  /** A container's log lines (demultiplexed), in the order the Engine sends them. */
  logs(container: EngineContainerSummary, options: LogsOptions): AsyncIterable<LogLine>;
}

export interface ComposeRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  cancelled: boolean;
}

/** The compose tool with the stack's own project name, folder, file and `.env`. */
export interface StackCompose {
  run(
    stack: string,
    args: string[],
    options?: { onLine?: (line: string) => void; signal?: AbortSignal; onSpawn?: (pid: number) => void },
  ): Promise<ComposeRun>;
}

/** A listening socket of the host and who holds it. */
export interface HostListener {
  port: number;
  /** `process nginx (pid 812)`, or `an unknown process` when /proc does not say. */
  holder: string;
}

export interface StacksDeps {
  stacks: StackStore;
  /** The stack lock (`apps:stack:<name>`), shared with the installer. */
  locks: Locks;
  engine: StackEngine;
  compose: StackCompose;
  /** Listening TCP and bound UDP ports of the host, with their holders. */
  listeners(): Promise<HostListener[]>;
  /** Host ports the stack publishes (its files as they are on disk, as the compose tool reads them). */
  publishedPorts(name: string): Promise<number[]>;
  /** Real host paths the stack's services bind-mount (the compose tool's `config`). */
  bindSources(name: string): Promise<string[]>;
  /** Real path of the app-data root (`/mnt/cache`): the only place data folders are removed from. */
  appDataRoot: string;
  /** Real path of the stack's folder (`/var/lib/appliance/stacks/<name>`). */
  stackDir(name: string): string;
  /** Open `container_update_available` conditions of a stack: service → message. */
  updates(name: string): Promise<Map<string, string>>;
}

export type { StackRow };
