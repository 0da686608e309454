/**
 * What the probes found on the host, as plain data: the input of the pure checks (checks.ts).
 * Every field is something a probe measured; nothing here is a judgement.
 */

/** A host tool: found on PATH (it started, whatever its exit code) or not. */
export type ToolFact = { found: true; version: string | null } | { found: false };

/** `docker compose version --short` (v2 plugin) and `docker-compose version --short` (v1 or v2). */
export interface ComposeFact {
  plugin: string | null;
  standalone: string | null;
}

/** The Docker Engine API as the service reaches it (DOCKER_HOST or /var/run/docker.sock). */
export type DockerFact =
  | { socket: string; reachable: true; version: string | null }
  | { socket: string | null; reachable: false; error: string };

export type ConfigFact =
  | { ok: true; file: string; exists: boolean; root: string }
  | { ok: false; file: string | null; error: string };

export interface SocketGroupFact {
  group: string;
  /** null: no such group in the group database. */
  gid: number | null;
  members: string[];
  socket: string;
}

export type PemFact = { state: 'ok' } | { state: 'missing' | 'unreadable' | 'invalid'; error: string };

export type CertFact =
  | { state: 'ok'; subject: string; notBefore: string; notAfter: string }
  | { state: 'missing' | 'unreadable' | 'invalid'; error: string };

export interface TlsPairFact {
  certFile: string;
  keyFile: string;
  cert: CertFact;
  key: PemFact;
  /** Permission bits of the key file (null when it could not be stat'ed). */
  keyMode: number | null;
  /** null when either file could not be read or parsed. */
  keyMatches: boolean | null;
}

/**
 * How the TCP listener gets its certificate (the service's rules: docs/configuration.md):
 * not at all (no listener, or plain HTTP on loopback), a configured pair, a pair generated on an
 * earlier start under /etc/appliance/tls, or one still to be generated with openssl.
 */
export type TlsFact =
  | { use: false; reason: string }
  | { use: true; source: 'configured' | 'generated'; pair: TlsPairFact }
  | { use: true; source: 'to-generate'; dir: string }
  /** Only one of tlsCert / tlsKey is set: the service ignores it and uses `fallback`. */
  | { use: true; source: 'half-configured'; set: 'tlsCert' | 'tlsKey'; fallback: TlsFact };

export interface StateDirFact {
  /** The state directory (real path, under the root prefix). */
  path: string;
  /** The directory measured: the state directory or, before the first start, its nearest existing parent. */
  measured: string;
  freeBytes: number | null;
  error?: string;
}

export interface Facts {
  node: { version: string };
  /** The uid doctor runs as (the service runs as root). */
  uid: number | null;
  config: ConfigFact;
  /** Keyed by tool name (TOOL_CHECKS plus openssl and docker). */
  tools: Record<string, ToolFact>;
  compose: ComposeFact;
  docker: DockerFact;
  /** null when the configuration did not load. */
  socketGroup: SocketGroupFact | null;
  tls: TlsFact | null;
  stateDir: StateDirFact | null;
}
