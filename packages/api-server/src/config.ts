import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type TomlParser from '@iarna/toml';
import * as v from 'valibot';
import { HOST_PATH, LOGICAL } from '@appliance/common';

/** The sandboxed smbd's default port (`DEFAULT_SANDBOX_SMB_PORT` of @appliance/shares). */
const DEFAULT_SANDBOX_SMB_PORT = 4450;

/**
 * Configuration: the TOML file, then APPLIANCE_* variables, then command-line flags (each later
 * source wins). See docs/configuration.md for every key.
 */
export interface Config {
  /** Root prefix for a sandbox ('' = the real host). */
  root: string;
  /** Where host facts (sysfs, /dev, /proc, udev, /etc/group) are read; '' = the real host. */
  hostRoot: string;
  configFile: string;
  /** TCP listener, or null for socket only. */
  listen: { host: string; port: number } | null;
  /** `auto`: plain HTTP on loopback, HTTPS elsewhere. `on`: always HTTPS. `off`: plain HTTP (loopback only). */
  tls: 'auto' | 'on' | 'off';
  tlsCert: string | null;
  tlsKey: string | null;
  /** Real path of the Unix socket. */
  socket: string;
  lab: { enabled: boolean; imageDir: string | null };
  /**
   * `sandbox`: with a root prefix, the service runs its own smbd on 127.0.0.1:`port` with every Samba
   * directory under the root, and manages its Samba accounts (issue 24). Off: the real host's smbd
   * (no root prefix), or no Samba at all (a sandbox).
   */
  samba: { sandbox: boolean; port: number };
  logLevel: 'info' | 'warn' | 'error' | 'silent';
  /**
   * Where every host command is looked up and what its PATH is (09): `/usr/sbin:/usr/bin:/sbin:/bin`
   * unless configured (`[tools] path`, `APPLIANCE_TOOL_PATH`: a lab puts guard shims first). Never
   * the PATH the service inherited.
   */
  toolPath: string;
  /**
   * apt (issue 38): `aptConfig` is an apt configuration file of the service's own, passed to every
   * apt-get/apt-config run as `APT_CONFIG` (`[updates] aptConfig`, `APPLIANCE_APT_CONFIG`); absent:
   * the system's apt configuration.
   */
  updates?: { aptConfig: string | null };
  /**
   * Certificate renewal over ACME (issue 38, `[acme]`): the directory URL, the domain, an optional
   * contact, the account key file (created on first use), where the HTTP-01 responder listens
   * (default 0.0.0.0:80) and an extra CA to trust for the directory (a test CA). Absent: no renewal.
   */
  acme?: {
    directory: string;
    domain: string;
    email: string | null;
    accountKey: string | null;
    httpListen: { host: string; port: number };
    caFile: string | null;
  } | null;
}

export interface ConfigFlags {
  config?: string;
  root?: string;
  listen?: string;
  socket?: string;
  lab?: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const FileSchema = v.strictObject({
  root: v.optional(v.string()),
  hostRoot: v.optional(v.string()),
  server: v.optional(
    v.strictObject({
      listen: v.optional(v.string()),
      tls: v.optional(v.picklist(['auto', 'on', 'off'])),
      tlsCert: v.optional(v.string()),
      tlsKey: v.optional(v.string()),
      socket: v.optional(v.string()),
    }),
  ),
  lab: v.optional(v.strictObject({ enabled: v.optional(v.boolean()), imageDir: v.optional(v.string()) })),
  samba: v.optional(
    v.strictObject({
      sandbox: v.optional(v.boolean()),
      port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535))),
    }),
  ),
  log: v.optional(v.strictObject({ level: v.optional(v.picklist(['info', 'warn', 'error', 'silent'])) })),
  tools: v.optional(v.strictObject({ path: v.optional(v.string()) })),
  updates: v.optional(v.strictObject({ aptConfig: v.optional(v.string()) })),
  acme: v.optional(
    v.strictObject({
      directory: v.pipe(v.string(), v.url('must be the URL of an ACME directory')),
      domain: v.pipe(v.string(), v.minLength(1)),
      email: v.optional(v.string()),
      accountKey: v.optional(v.string()),
      httpListen: v.optional(v.string()),
      caFile: v.optional(v.string()),
    }),
  ),
});

export function parseListen(value: string): { host: string; port: number } | null {
  if (value === '' || value === 'off') return null;
  const m = /^(\[[0-9a-fA-F:]+\]|[^:]+):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port < 0 || port > 65535)
    throw new ConfigError(`listen must be HOST:PORT (e.g. 127.0.0.1:8008), got ${JSON.stringify(value)}`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

const bool = (s: string | undefined): boolean | undefined =>
  s === undefined ? undefined : ['1', 'true', 'yes', 'on'].includes(s.toLowerCase());

export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const rootGuess = flags.root ?? env['APPLIANCE_ROOT'] ?? '';
  const configFile =
    flags.config ?? env['APPLIANCE_CONFIG'] ?? path.join(rootGuess || '/', LOGICAL.configFile);
  let file: v.InferOutput<typeof FileSchema> = {};
  if (fs.existsSync(configFile)) {
    let parsed: unknown;
    try {
      // the TOML parser is loaded only when there is a file to parse
      const TOML = createRequire(import.meta.url)('@iarna/toml') as typeof TomlParser;
      parsed = TOML.parse(fs.readFileSync(configFile, 'utf8'));
    } catch (err) {
      throw new ConfigError(
        `The configuration file ${configFile} is not valid TOML: ${(err as Error).message}`,
      );
    }
    const result = v.safeParse(FileSchema, parsed);
    if (!result.success) {
      const where = result.issues.map((i) => `${v.getDotPath(i) ?? '(file)'}: ${i.message}`).join('; ');
      throw new ConfigError(`The configuration file ${configFile} has errors: ${where}`);
    }
    file = result.output;
  } else if (flags.config ?? env['APPLIANCE_CONFIG']) {
    throw new ConfigError(`The configuration file ${configFile} does not exist.`);
  }

  const root = normalizeRoot(flags.root ?? env['APPLIANCE_ROOT'] ?? file.root ?? '');
  const hostRoot = normalizeRoot(env['APPLIANCE_HOST_ROOT'] ?? file.hostRoot ?? '');
  const listenText = flags.listen ?? env['APPLIANCE_LISTEN'] ?? file.server?.listen ?? '0.0.0.0:8008';
  const listen = parseListen(listenText);
  const tls = (env['APPLIANCE_TLS'] as Config['tls'] | undefined) ?? file.server?.tls ?? 'auto';
  if (!['auto', 'on', 'off'].includes(tls)) throw new ConfigError('APPLIANCE_TLS must be auto, on or off.');
  if (listen && tls === 'off' && !isLoopback(listen.host)) {
    throw new ConfigError(
      `Plain HTTP is allowed only on a loopback address; ${listen.host} needs tls = "auto" or "on".`,
    );
  }
  const socket =
    flags.socket ?? env['APPLIANCE_SOCKET'] ?? file.server?.socket ?? path.join(root || '/', LOGICAL.socket);
  const labEnabled = flags.lab ?? bool(env['APPLIANCE_LAB_ENABLED']) ?? file.lab?.enabled ?? false;
  const imageDir = env['APPLIANCE_LAB_IMAGE_DIR'] ?? file.lab?.imageDir ?? null;
  const samba = sambaConfig(root, hostRoot, env, file.samba);
  const logLevel =
    (env['APPLIANCE_LOG_LEVEL'] as Config['logLevel'] | undefined) ?? file.log?.level ?? 'info';
  return {
    root,
    hostRoot,
    configFile,
    listen,
    tls,
    tlsCert: env['APPLIANCE_TLS_CERT'] ?? file.server?.tlsCert ?? null,
    tlsKey: env['APPLIANCE_TLS_KEY'] ?? file.server?.tlsKey ?? null,
    socket,
    lab: { enabled: labEnabled, imageDir },
    samba,
    logLevel,
    toolPath: parseToolPath(env['APPLIANCE_TOOL_PATH'] ?? file.tools?.path ?? HOST_PATH),
    updates: { aptConfig: env['APPLIANCE_APT_CONFIG'] ?? file.updates?.aptConfig ?? null },
    acme: file.acme
      ? {
          directory: file.acme.directory,
          domain: file.acme.domain,
          email: file.acme.email ?? null,
          accountKey: file.acme.accountKey ?? null,
          httpListen: acmeListen(file.acme.httpListen ?? '0.0.0.0:80'),
          caFile: file.acme.caFile ?? null,
        }
      : null,
  };
}

function acmeListen(value: string): { host: string; port: number } {
  const listen = parseListen(value);
  if (!listen)
    throw new ConfigError(
      `acme.httpListen must be host:port (e.g. 0.0.0.0:80), got ${JSON.stringify(value)}.`,
    );
  return listen;
}

/** Absolute directories joined by `:`. */
export function parseToolPath(value: string): string {
  const dirs = value.split(':');
  if (dirs.length === 0 || dirs.some((d) => !d.startsWith('/')))
    throw new ConfigError(
      `The tool path must be absolute directories joined by ":" (e.g. ${HOST_PATH}), got ${JSON.stringify(value)}.`,
    );
  return value;
}

function sambaConfig(
  root: string,
  hostRoot: string,
  env: NodeJS.ProcessEnv,
  file: { sandbox?: boolean | undefined; port?: number | undefined } | undefined,
): Config['samba'] {
  const sandbox = bool(env['APPLIANCE_SAMBA_SANDBOX']) ?? file?.sandbox ?? false;
  const portText = env['APPLIANCE_SAMBA_PORT'];
  let port = file?.port ?? DEFAULT_SANDBOX_SMB_PORT;
  if (portText !== undefined) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
    if (!(port >= 1 && port <= 65535))
      throw new ConfigError(
        `APPLIANCE_SAMBA_PORT must be a port number from 1 to 65535, got ${JSON.stringify(portText)}.`,
      );
  }
  if (sandbox && root === '')
    throw new ConfigError(
      'samba.sandbox needs a root prefix (--root): on the real host the system smbd serves the shares.',
    );
  if (sandbox && hostRoot !== '')
    throw new ConfigError(
      "samba.sandbox creates real Unix accounts for the share users, so it reads the machine's own passwd database: leave hostRoot empty.",
    );
  return { sandbox, port };
}

function normalizeRoot(root: string): string {
  if (root === '' || root === '/') return '';
  return path.resolve(root);
}
