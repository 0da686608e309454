import { ApiError, ConnectionError, DEFAULT_SOCKET } from '@appliance/client';
import { Command, CommanderError, Help } from 'commander';

const plainHelp = new Help();
import { makeApp, type Register } from './framework/command.ts';
import { EXIT, EXIT_HELP, Refusal, UsageError } from './framework/exit.ts';
import type { Io } from './framework/io.ts';
import { Interrupted } from './framework/progress.ts';
import { features } from './features/index.ts';
import { doctor } from './features/doctor/index.ts';
import { serve } from './features/serve/index.ts';

const ABOUT = [
  "The storage appliance's command line: every operation of the admin API.",
  '',
  `Talks to the service's Unix socket (--socket, else APPLIANCE_SOCKET, else ${DEFAULT_SOCKET}) as the local administrator, or to --url https://HOST:PORT (else APPLIANCE_URL) with the token in APPLIANCE_TOKEN.`,
  '',
  "Human output by default; --json prints the API's JSON as it is.",
].join('\n');

/** The `appliance` command with every feature's subcommands. */
export function buildProgram(io: Io, registers: Register[] = features): Command {
  const root = new Command('appliance')
    .description(ABOUT)
    .option('--socket <path>', 'the service socket (default: APPLIANCE_SOCKET, else the service default)')
    .option('--url <url>', 'the service address https://HOST:PORT (token in APPLIANCE_TOKEN)')
    .option('--ca <file>', 'PEM certificate to trust for --url (default: APPLIANCE_CA)')
    .option('--json', "print the API's JSON instead of tables")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({
      showGlobalOptions: true,
      // a repeatable option's empty list is no default worth printing
      optionDescription: (o) =>
        Array.isArray(o.defaultValue) && o.defaultValue.length === 0
          ? o.description
          : plainHelp.optionDescription(o),
    })
    .addHelpText('afterAll', `\n${EXIT_HELP}\n`);
  const app = makeApp(root, io);
  for (const register of registers) register(root, app);
  return root;
}

/** Runs one command line; resolves with the exit status (08 §15). */
export async function run(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    if (argv[0] === 'serve') return await serve(argv.slice(1));
    if (argv[0] === 'doctor') return await doctor(argv.slice(1), io);
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    return report(err, io);
  }
}

function report(err: unknown, io: Io): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
    if (err.exitCode === 0) return EXIT.ok;
    return EXIT.usage; // commander printed the message (unknown command or option, missing argument)
  }
  if (err instanceof UsageError) {
    io.stderr.write(`usage error: ${err.message}\n(add --help for usage)\n`);
    return EXIT.usage;
  }
  if (err instanceof ApiError || err instanceof Refusal) {
    io.stderr.write(`${err.code}: ${err.message}\n`);
    return EXIT.apiError;
  }
  if (err instanceof ConnectionError) {
    io.stderr.write(`${err.message}\n`);
    return EXIT.unreachable;
  }
  if (err instanceof Interrupted) return EXIT.interrupted;
  io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  return EXIT.apiError;
}
