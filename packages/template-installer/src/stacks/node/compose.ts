/**
 * The compose tool for the stack operations: `docker compose` or `docker-compose` (detected by
 * the installer's ComposeTool), with the stack's own project name, folder, file and `.env`, its
 * output streamed line by line (per-service progress), no colours.
 */
import path from 'node:path';
import type { CommandRunner } from '@appliance/common';
import type { ComposeTool } from '../../node/compose-tool.ts';
import { toolEnvironment } from '../../node/compose-tool.ts';
import type { StackCompose } from '../ports.ts';

/** A compose run may pull images and wait for stops: 15 minutes at most. */
const TIMEOUT_MS = 15 * 60_000;

export function createStackCompose(deps: {
  runner: CommandRunner;
  tool: ComposeTool;
  /** Real path of the stacks directory. */
  stacksDir: string;
  environ: Readonly<Record<string, string | undefined>>;
}): StackCompose {
  const env = toolEnvironment(deps.environ);
  return {
    async run(stack, args, options = {}) {
      const tool = await deps.tool.detect();
      const dir = path.join(deps.stacksDir, stack);
      const plain = tool.flavour === 'v2' ? ['--progress', 'plain', '--ansi', 'never'] : ['--ansi', 'never'];
      const r = await deps.runner.run(
        tool.command,
        [
          ...tool.prefix,
          ...plain,
          '--project-name',
          stack,
          '--project-directory',
          dir,
          '--file',
          path.join(dir, 'docker-compose.yml'),
          '--env-file',
          path.join(dir, '.env'),
          ...args,
        ],
        {
          env,
          timeoutMs: TIMEOUT_MS,
          ...(options.onLine ? { onLine: (line: string) => options.onLine!(line) } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
        },
      );
      return {
        exitCode: r.timedOut ? -1 : r.exitCode,
        stdout: r.stdout,
        stderr: r.stderr,
        cancelled: r.cancelled === true,
      };
    },
  };
}
