import type { Command } from 'commander';
import { Ctx, type GlobalOptions } from './context.ts';
import type { Io } from './io.ts';

/** What every feature's `register` gets. */
export interface App {
  io: Io;
  /** The command group `name` under the root (created once, shared by features: `shares`). */
  group(name: string, description: string): Command;
  /** Wraps an action: options and arguments of the command, and the context built from the globals. */
  action<O = Record<string, unknown>>(
    fn: (ctx: Ctx, opts: O, args: string[]) => Promise<void>,
  ): (...args: unknown[]) => Promise<void>;
}

export type Register = (root: Command, app: App) => void;

export function makeApp(root: Command, io: Io): App {
  return {
    io,
    group(name, description) {
      const existing = root.commands.find((c) => c.name() === name);
      return existing ?? root.command(name).description(description);
    },
    action(fn) {
      return async (...args: unknown[]) => {
        const cmd = args[args.length - 1] as Command;
        const ctx = new Ctx(io, cmd.optsWithGlobals() as GlobalOptions);
        await fn(ctx, cmd.opts() as never, cmd.args);
      };
    },
  };
}

/** `key=value` pairs of a repeated option, in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
