/**
 * Collects the facts through injected probes: which files and listeners the configuration implies
 * (the same rules as the service: docs/configuration.md) and what each probe found there.
 */
import { createHostPaths, SOCKET_GROUP } from '@appliance/common';
import { EXTRA_TOOLS, TOOL_CHECKS } from './core/checks.ts';
import type {
  ComposeFact,
  ConfigFact,
  DockerFact,
  Facts,
  StateDirFact,
  TlsFact,
  TlsPairFact,
  ToolFact,
} from './core/facts.ts';

/** The part of the service's configuration (api-server's `Config`) that doctor reads. */
export interface DoctorConfig {
  root: string;
  hostRoot?: string;
  configFile: string;
  listen: { host: string; port: number } | null;
  tls: 'auto' | 'on' | 'off';
  tlsCert: string | null;
  tlsKey: string | null;
  socket: string;
  /** Where the service looks its host tools up (its `[tools] path`); doctor looks in the same place. */
  toolPath?: string;
}

export { SOCKET_GROUP };

/** The host, seen through these. The real ones are in node/probes.ts; tests pass fakes. */
export interface Probes {
  nodeVersion(): string;
  uid(): number | null;
  tool(name: string, versionArgs: readonly string[]): Promise<ToolFact>;
  compose(): Promise<ComposeFact>;
  docker(): Promise<DockerFact>;
  /** The group's gid and members from the group database, or null. */
  group(file: string, name: string): Promise<{ gid: number; members: string[] } | null>;
  exists(file: string): Promise<boolean>;
  tlsPair(certFile: string, keyFile: string): Promise<TlsPairFact>;
  /** Free space for `dir`, measured at it or at its nearest existing parent. */
  freeSpace(dir: string): Promise<StateDirFact>;
}

export type LoadedConfig =
  | { ok: true; config: DoctorConfig; exists: boolean }
  | { ok: false; error: string; file: string | null };

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

export async function gatherFacts(loaded: LoadedConfig, probes: Probes): Promise<Facts> {
  const toolNames = [...TOOL_CHECKS, ...EXTRA_TOOLS];
  const found = await Promise.all(toolNames.map((t) => probes.tool(t.tool, t.versionArgs)));
  const tools: Record<string, ToolFact> = {};
  toolNames.forEach((t, i) => {
    tools[t.tool] = found[i]!;
  });
  const [compose, docker] = await Promise.all([probes.compose(), probes.docker()]);
  const facts: Facts = {
    node: { version: probes.nodeVersion() },
    uid: probes.uid(),
    config: configFact(loaded),
    tools,
    compose,
    docker,
    socketGroup: null,
    tls: null,
    stateDir: null,
  };
  if (!loaded.ok) return facts;
  const { config } = loaded;
  const paths = createHostPaths({ root: config.root, hostRoot: config.hostRoot ?? '' });
  const group = await probes.group(paths.etcGroup, SOCKET_GROUP);
  facts.socketGroup = {
    group: SOCKET_GROUP,
    gid: group?.gid ?? null,
    members: group?.members ?? [],
    socket: config.socket,
  };
  facts.tls = await tlsFact(config, `${paths.etcDir}/tls`, probes);
  facts.stateDir = await probes.freeSpace(paths.stateDir);
  return facts;
}

function configFact(loaded: LoadedConfig): ConfigFact {
  return loaded.ok
    ? { ok: true, file: loaded.config.configFile, exists: loaded.exists, root: loaded.config.root }
    : { ok: false, file: loaded.file, error: loaded.error };
}

/** The service's rules (server.ts `tlsMaterial`): a configured pair, else one under etc/tls. */
async function tlsFact(config: DoctorConfig, tlsDir: string, probes: Probes): Promise<TlsFact> {
  const { listen } = config;
  if (!listen) return { use: false, reason: 'the TCP listener is off (socket only)' };
  const https = config.tls === 'on' || (config.tls === 'auto' && !isLoopback(listen.host));
  if (!https)
    return {
      use: false,
      reason: `plain HTTP on ${listen.host}:${listen.port} (tls = ${config.tls}, a loopback address)`,
    };
  if (config.tlsCert && config.tlsKey)
    return { use: true, source: 'configured', pair: await probes.tlsPair(config.tlsCert, config.tlsKey) };
  const generated = await generatedFact(tlsDir, probes);
  if (config.tlsCert) return { use: true, source: 'half-configured', set: 'tlsCert', fallback: generated };
  if (config.tlsKey) return { use: true, source: 'half-configured', set: 'tlsKey', fallback: generated };
  return generated;
}

async function generatedFact(dir: string, probes: Probes): Promise<TlsFact> {
  const cert = `${dir}/cert.pem`;
  const key = `${dir}/key.pem`;
  if ((await probes.exists(cert)) && (await probes.exists(key)))
    return { use: true, source: 'generated', pair: await probes.tlsPair(cert, key) };
  return { use: true, source: 'to-generate', dir };
}
