/**
 * The compose tool (02 §11.4): `docker compose` (v2 plugin) or `docker-compose` (v1 or v2),
 * detected once and remembered; the config check; the `config` fallback for reading ports.
 */
import { AppError, type CommandRunner, type CommandResult } from '@appliance/common';
import type { ComposeFlavour } from '../core/env-file.ts';
import { publishedPorts } from '../core/ports.ts';
import { yaml } from '../core/yaml-lib.ts';

export interface ComposeToolInfo {
  flavour: ComposeFlavour;
  command: string;
  /** Arguments before the compose arguments (`compose` for the plugin). */
  prefix: string[];
  version: string;
}

export interface StackLocation {
  name: string;
  /** Real directory (with the root prefix). */
  dir: string;
}

export interface ComposeTool {
  detect(): Promise<ComposeToolInfo>;
  /** `config --quiet`; exit ≠ 0 → 400 invalid_stack with the masked stderr. */
  check(stack: StackLocation, mask: { secrets: readonly string[]; root: string }): Promise<void>;
  /** Ports from the tool's `config` output (the in-process reader's fallback). */
  configPorts(stack: StackLocation): Promise<number[]>;
}

export const TOOL_ENV_NAMES = [
  'PATH',
  'HOME',
  'XDG_RUNTIME_DIR',
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
] as const;

/** The tool's environment: the listed variables that are set for the daemon, plus LC_ALL. */
export function toolEnvironment(
  source: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of TOOL_ENV_NAMES) {
    const v = source[name];
    if (v !== undefined) env[name] = v;
  }
  env['LC_ALL'] = 'C.UTF-8';
  return env;
}

export const composeUnavailable = (why: string) =>
  new AppError(
    503,
    'compose_unavailable',
    `${why} Install the Debian package docker-compose (or docker-compose-plugin) and try again.`,
  );

const TIMEOUT_MS = 30_000;

/** stderr for a client: at most 4 KiB, secrets as ***, real paths as logical ones. */
export function maskOutput(text: string, mask: { secrets: readonly string[]; root: string }): string {
  let out = text;
  for (const s of mask.secrets) if (s !== '') out = out.replaceAll(s, '***');
  if (mask.root !== '') out = out.replaceAll(mask.root, '');
  const bytes = Buffer.from(out, 'utf8');
  return bytes.length <= 4096
    ? out
    : bytes
        .subarray(0, 4096)
        .toString('utf8')
        .replace(/\uFFFD$/, '');
}

export function createComposeTool(
  runner: CommandRunner,
  environ: Readonly<Record<string, string | undefined>>,
): ComposeTool {
  const env = toolEnvironment(environ);
  let found: ComposeToolInfo | null = null;
  const tryRun = async (cmd: string, args: string[]): Promise<CommandResult | null> => {
    try {
      return await runner.run(cmd, args, { env, timeoutMs: TIMEOUT_MS });
    } catch (e) {
      if (e instanceof AppError) return null; // tool missing
      throw e;
    }
  };
  const detect = async (): Promise<ComposeToolInfo> => {
    if (found) return found;
    const plugin = await tryRun('docker', ['compose', 'version', '--short']);
    if (plugin && plugin.exitCode === 0 && !plugin.timedOut) {
      found = { flavour: 'v2', command: 'docker', prefix: ['compose'], version: plugin.stdout.trim() };
      return found;
    }
    const standalone = await tryRun('docker-compose', ['version', '--short']);
    if (standalone && standalone.exitCode === 0 && !standalone.timedOut) {
      const version = standalone.stdout.trim();
      found = {
        flavour: version.startsWith('1.') ? 'v1' : 'v2',
        command: 'docker-compose',
        prefix: [],
        version,
      };
      return found;
    }
    throw composeUnavailable(
      'No compose tool was found: neither "docker compose" nor "docker-compose" answers.',
    );
  };
  const base = (tool: ComposeToolInfo, stack: StackLocation) => [
    ...tool.prefix,
    '--project-name',
    stack.name,
    '--project-directory',
    stack.dir,
    '--file',
    `${stack.dir}/docker-compose.yml`,
    '--env-file',
    `${stack.dir}/.env`,
  ];
  const run = async (tool: ComposeToolInfo, args: string[]) => {
    const r = await runner.run(tool.command, args, { env, timeoutMs: TIMEOUT_MS });
    if (r.timedOut) throw composeUnavailable(`${tool.command} did not answer within 30 seconds.`);
    return r;
  };
  return {
    detect,
    async check(stack, mask) {
      const tool = await detect();
      const r = await run(tool, [...base(tool, stack), 'config', '--quiet']);
      if (r.exitCode !== 0) {
        const output = maskOutput(r.stderr, mask);
        throw new AppError(
          400,
          'invalid_stack',
          `The compose tool refused the stack ${stack.name}; fix what its output says and try again.`,
          { stack: stack.name, output },
        );
      }
    },
    async configPorts(stack) {
      const tool = await detect();
      const args =
        tool.flavour === 'v2'
          ? [...base(tool, stack), '--profile', '*', 'config', '--format', 'json']
          : [...base(tool, stack), 'config'];
      const r = await run(tool, args);
      if (r.exitCode !== 0) throw new Error(`compose config failed: ${r.stderr.slice(0, 300)}`);
      const model = tool.flavour === 'v2' ? JSON.parse(r.stdout) : yaml().parse(r.stdout);
      return publishedPorts(model);
    },
  };
}
