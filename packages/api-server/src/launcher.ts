#!/usr/bin/env node
/**
 * `appliance-server`: the service's own launcher, and nothing else (`bin/appliance-server` runs the
 * built `dist/launcher.js` with the service's Node flags). The operator's command is `appliance`
 * of @appliance/cli: its `appliance serve …` hands its arguments to this launcher, and it has
 * every other command (doctor, admin create, tokens, config export …).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { StartupError, startServer } from './server.ts';
import { compactAfterStart } from './memory.ts';
import { settleCompileCache } from './compile-cache.ts';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const HELP = `appliance-server — runs the storage appliance admin service

Usage:
  appliance-server [--config PATH] [--root DIR] [--listen HOST:PORT] [--socket PATH] [--lab]

Loads the configuration (file, then APPLIANCE_* variables, then these flags), checks the machine
key, applies migrations and starts the TCP listener and the Unix socket. --lab lists loop devices
as disks. Stops gracefully on SIGINT/SIGTERM. Exit status: 0 stopped, 1 the configuration or the
start failed (the reason on stderr), 2 usage error.

This is the launcher the systemd unit runs. Operators use \`appliance\` (@appliance/cli):
\`appliance serve …\` runs this launcher; \`appliance doctor\`, \`appliance admin create\`,
\`appliance token …\`, \`appliance config export\` and every other operation are there.
`;

class UsageError extends Error {
  override name = 'UsageError';
}

const OPTIONS = {
  config: { type: 'string' },
  root: { type: 'string' },
  listen: { type: 'string' },
  socket: { type: 'string' },
  lab: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(args: string[]) {
  const parsed = (() => {
    try {
      return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  })();
  const [word] = parsed.positionals;
  if (word !== undefined)
    throw new UsageError(
      `appliance-server takes no command (got "${word}"): it only runs the service; ` +
        `every operator command is in \`appliance\` (@appliance/cli), e.g. \`appliance ${word}\``,
    );
  return parsed.values;
}

export async function main(
  args: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv },
): Promise<number> {
  try {
    const values = parse(args);
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    const config = loadConfig(
      {
        ...(values.config ? { config: values.config } : {}),
        ...(values.root ? { root: values.root } : {}),
        ...(values.listen ? { listen: values.listen } : {}),
        ...(values.socket ? { socket: values.socket } : {}),
        ...(values.lab ? { lab: true } : {}),
      },
      io.env,
    );
    const server = await startServer({ config });
    compactAfterStart();
    settleCompileCache(io.env);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
    // Everything is closed; a handle a worker forgot must not keep a stopped service alive.
    setTimeout(() => process.exit(EXIT.ok), 500).unref();
    return EXIT.ok;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`usage error: ${err.message}\n\n${HELP}`);
      return EXIT.usage;
    }
    if (err instanceof ConfigError || err instanceof StartupError) {
      io.stderr.write(`${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  }
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
