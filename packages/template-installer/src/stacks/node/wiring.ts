/** The real adapters of the stack operations, from what the host service already has. */
import path from 'node:path';
import type { CommandRunner } from '@appliance/common';
import { OutsideSubset } from '../../core/interpolate.ts';
import { stackPorts } from '../../core/stack-ports.ts';
import { yaml } from '../../core/yaml-lib.ts';
import type { ComposeTool } from '../../node/compose-tool.ts';
import { engineSocket } from '../../node/docker-engine.ts';
import { readNoFollow } from '../../node/stack-files.ts';
import { stackUnreadable } from '../../node/stack-ports-reader.ts';
import type { Locks, StackStore } from '../../node/stack-store.ts';
import { bindSources } from '../core/app-data.ts';
import type { StackEngine, StacksDeps } from '../ports.ts';
import { createStackCompose } from './compose.ts';
import { createStackEngine } from './engine.ts';
import { readHostListeners } from './listeners.ts';

export function createStacksDeps(options: {
  runner: CommandRunner;
  tool: ComposeTool;
  stacks: StackStore;
  locks: Locks;
  /** Real path of `/var/lib/appliance/stacks`. */
  stacksDir: string;
  /** Real path of the app-data root (`/mnt/cache`). */
  appDataRoot: string;
  /** The daemon's environment (DOCKER_HOST…), read at each call. */
  environ: () => Readonly<Record<string, string | undefined>>;
  updates: StacksDeps['updates'];
  procDir?: string;
  /** Replaces the Engine (tests inject a failure). */
  engine?: StackEngine;
}): StacksDeps {
  const engine =
    options.engine ??
    ((): StackEngine => {
      const e = () => createStackEngine({ socketPath: engineSocket(options.environ()['DOCKER_HOST']) });
      return {
        containers: (p) => e().containers(p),
        imageDigests: () => e().imageDigests(),
        imageId: (r) => e().imageId(r),
        containerReference: (id) => e().containerReference(id),
        tagImage: (id, r) => e().tagImage(id, r),
        logs: (c, o) => e().logs(c, o),
      };
    })();
  const compose = {
    run: (stack: string, args: string[], o?: Parameters<StacksDeps['compose']['run']>[2]) =>
      createStackCompose({
        runner: options.runner,
        tool: options.tool,
        stacksDir: options.stacksDir,
        environ: options.environ(),
      }).run(stack, args, o),
  };
  const stackDir = (name: string) => path.join(options.stacksDir, name);
  return {
    stacks: options.stacks,
    locks: options.locks,
    engine,
    compose,
    listeners: () => readHostListeners(options.procDir ?? '/proc'),
    updates: options.updates,
    appDataRoot: options.appDataRoot,
    stackDir,
    async publishedPorts(name) {
      const dir = stackDir(name);
      const [composeText, env] = await Promise.all([
        readNoFollow(path.join(dir, 'docker-compose.yml')),
        readNoFollow(path.join(dir, '.env')),
      ]);
      if (composeText === null) throw stackUnreadable(name);
      const tool = await options.tool.detect();
      const environ: Record<string, string> = {};
      for (const [k, v] of Object.entries(options.environ())) if (v !== undefined) environ[k] = v;
      try {
        return stackPorts({ compose: composeText, env: env ?? '' }, tool.flavour, environ);
      } catch (e) {
        if (!(e instanceof OutsideSubset)) throw stackUnreadable(name);
        return options.tool.configPorts({ name, dir });
      }
    },
    async bindSources(name) {
      const r = await compose.run(name, ['config']);
      if (r.exitCode !== 0) throw stackUnreadable(name);
      return bindSources(yaml().parse(r.stdout));
    },
  };
}
