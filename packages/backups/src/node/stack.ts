/**
 * Docker Compose stacks as a backup sees them (the injected Docker adapter): which host folders a
 * stack binds (`<compose> config`, as the compose tool resolves them with the stack's `.env`),
 * whether its containers run (`docker ps` by the compose project label), and stopping and starting
 * them for a consistent copy. `docker compose` (v2 plugin) or `docker-compose` (v1/v2), whichever
 * the host has; the tools get the daemon's DOCKER_HOST and friends, nothing else.
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError, type CommandRunner, onFirstUse } from '@appliance/common';
import type * as Yaml from 'yaml';
import { bindSources } from '../core/appdata.ts';
import type { BackupStacks } from '../ports.ts';

export interface ComposeCommand {
  command: string;
  /** Arguments before the compose arguments (`compose` for the plugin). */
  prefix: readonly string[];
}

export interface StackControl {
  /** Real host paths the stack's services bind-mount. */
  bindSources(stack: string): Promise<string[]>;
  /** Ids of the stack's running containers. */
  running(stack: string): Promise<string[]>;
  stop(stack: string): Promise<void>;
  start(stack: string): Promise<void>;
}

const TIMEOUT_MS = 180_000;

/** yaml loads on the first stack read, not at the service's start (docs/decisions/performance.md). */
const yaml = onFirstUse(() => createRequire(import.meta.url)('yaml') as typeof Yaml);

export function createStackControl(deps: {
  runner: CommandRunner;
  /** Real path of the stacks directory (`/var/lib/appliance/stacks`). */
  stacksDir: string;
  /** The compose tool to use (detected by the caller). */
  compose: () => Promise<ComposeCommand>;
  /** The tools' environment (DOCKER_HOST, …). */
  env: Record<string, string>;
}): StackControl {
  const base = (stack: string) => {
    const dir = path.join(deps.stacksDir, stack);
    return [
      '--project-name',
      stack,
      '--project-directory',
      dir,
      '--file',
      path.join(dir, 'docker-compose.yml'),
      '--env-file',
      path.join(dir, '.env'),
    ];
  };
  const compose = async (stack: string, args: string[]) => {
    const tool = await deps.compose();
    const r = await deps.runner.run(tool.command, [...tool.prefix, ...base(stack), ...args], {
      env: deps.env,
      timeoutMs: TIMEOUT_MS,
    });
    if (r.exitCode !== 0 || r.timedOut)
      throw new AppError(
        502,
        'compose_failed',
        `${tool.command} ${args[0]} for the stack ${stack} failed: ${(r.stderr.trim().split('\n').at(-1) ?? '').slice(0, 300) || `exit ${r.exitCode}`}`,
        { stack },
      );
    return r;
  };
  return {
    async bindSources(stack) {
      const r = await compose(stack, ['config']);
      return bindSources(yaml().parse(r.stdout));
    },
    async running(stack) {
      const r = await deps.runner.run(
        'docker',
        ['ps', '-q', '--filter', `label=com.docker.compose.project=${stack}`, '--filter', 'status=running'],
        { env: deps.env, timeoutMs: 60_000 },
      );
      if (r.exitCode !== 0)
        throw new AppError(502, 'docker_failed', `docker ps failed: ${r.stderr.trim().slice(0, 300)}`);
      return r.stdout.split('\n').filter(Boolean);
    },
    async stop(stack) {
      await compose(stack, ['stop']);
    },
    async start(stack) {
      await compose(stack, ['start']);
    },
  };
}

/**
 * The stacks of an appliance as the backup jobs see them: compose and docker (`createStackControl`),
 * a stack installed when its `docker-compose.yml` exists under `stacksDir`, and the watch of its
 * containers paused by the caller's `pauseWatch`.
 */
export function createBackupStacks(
  deps: Parameters<typeof createStackControl>[0] & Pick<BackupStacks, 'pauseWatch'>,
): BackupStacks {
  return {
    ...createStackControl(deps),
    exists: (stack) =>
      fs.stat(path.join(deps.stacksDir, stack, 'docker-compose.yml')).then(
        () => true,
        () => false,
      ),
    pauseWatch: (stack) => deps.pauseWatch(stack),
  };
}
