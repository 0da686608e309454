import { parseArgs } from 'node:util';
import { LOGICAL } from '@appliance/common';
import { DOCTOR_HELP, doctorCommand } from '@appliance/doctor';
import { ConfigError, loadConfig } from '../config.ts';
import { StartupError, startServer } from '../server.ts';
import { type SocketResponse, SocketUnavailable, socketRequest } from './socket-client.ts';
import { readPassword } from './password-prompt.ts';

export const EXIT = { ok: 0, apiError: 1, usage: 2, socket: 3 } as const;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** A client subcommand module (e.g. `config export`, registered by the config-archive feature). */
export interface CliCommand {
  /** Words after `appliance`, e.g. ['config', 'export']. */
  words: string[];
  help: string;
  run(args: string[], io: Io, socket: string): Promise<number>;
}

const HELP = `appliance — the storage appliance admin service

Usage:
  appliance serve [--config PATH] [--root DIR] [--listen HOST:PORT] [--socket PATH] [--lab]
  appliance doctor [--config PATH] [--root DIR] [--json]
  appliance admin create --username NAME [--password-stdin] [--socket PATH]
  appliance token create --name NAME [--role admin|viewer] [--expires-in SECONDS] [--socket PATH]
  appliance token list [--socket PATH]
  appliance token revoke ID [--socket PATH]
  appliance config export [--output PATH | -] [--force] [--socket PATH]

Client commands talk to the Unix socket (--socket, else APPLIANCE_SOCKET, else ${LOGICAL.socket})
and act as the local administrator. Exit status: 0 success, 1 the API answered an error,
2 usage error, 3 socket missing or unreachable (doctor: 1 = a required check failed). Each command
has --help. Every other operator command (config import among them) is in @appliance/cli.
`;

const COMMAND_HELP: Record<string, string> = {
  serve: `appliance serve [--config PATH] [--root DIR] [--listen HOST:PORT] [--socket PATH] [--lab]
  Loads the configuration (file, then APPLIANCE_* variables, then these flags), checks the machine
  key, applies migrations and starts the TCP listener and the Unix socket. --lab lists loop devices
  as disks. Stops gracefully on SIGINT/SIGTERM.`,
  doctor: DOCTOR_HELP,
  'admin create': `appliance admin create --username NAME [--password-stdin]
  Creates the one administrator (POST /setup/admin). On a terminal it asks for the password twice;
  otherwise --password-stdin reads it from standard input.`,
  'token create': `appliance token create --name NAME [--role admin|viewer] [--expires-in SECONDS]
  Creates an API token of the admin account and prints only the raw token (shown once).`,
  'token list': `appliance token list
  Lists tokens (never their values), one per line: id, role, name, owner, expiry.`,
  'token revoke': `appliance token revoke ID
  Revokes the token with this id at once.`,
};

export async function main(argv: string[], io: Io, extra: CliCommand[] = []): Promise<number> {
  try {
    return await dispatch(argv, io, extra);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`usage error: ${err.message}\n\n${HELP}`);
      return EXIT.usage;
    }
    if (err instanceof SocketUnavailable) {
      io.stderr.write(`${err.message}\n`);
      return EXIT.socket;
    }
    if (err instanceof ConfigError || err instanceof StartupError) {
      io.stderr.write(`${err.message}\n`);
      return EXIT.apiError;
    }
    throw err;
  }
}

async function dispatch(argv: string[], io: Io, extra: CliCommand[]): Promise<number> {
  const [a, b] = argv;
  if (!a || a === '--help' || a === '-h' || a === 'help') {
    io.stdout.write(HELP);
    return a ? EXIT.ok : EXIT.usage;
  }
  const two = `${a} ${b ?? ''}`.trim();
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  const ext = extra.find((c) => c.words.join(' ') === two);
  const helpText = COMMAND_HELP[a === 'serve' || a === 'doctor' ? a : two] ?? ext?.help;
  if (wantsHelp) {
    if (!helpText) throw new UsageError(`unknown command: ${argv.join(' ')}`);
    io.stdout.write(`${helpText}\n`);
    return EXIT.ok;
  }
  if (a === 'serve') return serve(argv.slice(1), io);
  if (a === 'doctor') return doctorCommand(argv.slice(1), io, { loadConfig });
  const socketOf = (v: { socket?: string | undefined }) =>
    v.socket ?? io.env['APPLIANCE_SOCKET'] ?? LOGICAL.socket;
  if (ext) {
    const { values } = parse(argv.slice(2), { socket: { type: 'string' } }, true);
    return ext.run(argv.slice(2), io, socketOf(values as { socket?: string }));
  }
  switch (two) {
    case 'admin create':
      return adminCreate(argv.slice(2), io, socketOf);
    case 'token create':
      return tokenCreate(argv.slice(2), io, socketOf);
    case 'token list':
      return tokenList(argv.slice(2), io, socketOf);
    case 'token revoke':
      return tokenRevoke(argv.slice(2), io, socketOf);
    default:
      throw new UsageError(`unknown command: ${argv.join(' ')}`);
  }
}

type Opts = Parameters<typeof parseArgs>[0] extends infer T
  ? T extends { options?: infer O }
    ? O
    : never
  : never;

function parse(args: string[], options: Opts, loose = false) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: !loose });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function apiError(res: SocketResponse, io: Io): number {
  let code = 'error';
  let message = `HTTP ${res.status}`;
  try {
    const body = res.json() as { code?: string; message?: string };
    code = body.code ?? code;
    message = body.message ?? message;
  } catch {
    // not JSON
  }
  io.stderr.write(`${code}: ${message}\n`);
  return EXIT.apiError;
}

async function serve(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    config: { type: 'string' },
    root: { type: 'string' },
    listen: { type: 'string' },
    socket: { type: 'string' },
    lab: { type: 'boolean' },
  });
  const config = loadConfig(
    {
      ...(values.config ? { config: values.config as string } : {}),
      ...(values.root ? { root: values.root as string } : {}),
      ...(values.listen ? { listen: values.listen as string } : {}),
      ...(values.socket ? { socket: values.socket as string } : {}),
      ...(values.lab ? { lab: true } : {}),
    },
    io.env,
  );
  const server = await startServer({ config });
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  // Everything is closed; a handle a worker forgot must not keep a stopped service alive.
  setTimeout(() => process.exit(EXIT.ok), 500).unref();
  return EXIT.ok;
}

async function adminCreate(
  args: string[],
  io: Io,
  socketOf: (v: { socket?: string }) => string,
): Promise<number> {
  const { values } = parse(args, {
    username: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    socket: { type: 'string' },
  });
  const username = values.username as string | undefined;
  if (!username) throw new UsageError('--username is required');
  let password: string;
  if (values['password-stdin']) {
    password = (await readAll(io.stdin)).replace(/\r?\n$/, '');
  } else if (io.stdin.isTTY) {
    const first = await readPassword('Password: ', io);
    const second = await readPassword('Repeat password: ', io);
    if (first !== second) {
      io.stderr.write('The passwords do not match.\n');
      return EXIT.usage;
    }
    password = first;
  } else {
    throw new UsageError(
      'no terminal to ask for the password: pass --password-stdin and write it to standard input',
    );
  }
  const res = await socketRequest(socketOf(values as { socket?: string }), 'POST', '/setup/admin', {
    username,
    password,
  });
  if (res.status !== 201) return apiError(res, io);
  const user = (res.json() as { user: { username: string } }).user;
  io.stderr.write(`Created the administrator ${user.username}.\n`);
  return EXIT.ok;
}

async function tokenCreate(
  args: string[],
  io: Io,
  socketOf: (v: { socket?: string }) => string,
): Promise<number> {
  const { values } = parse(args, {
    name: { type: 'string' },
    role: { type: 'string' },
    'expires-in': { type: 'string' },
    socket: { type: 'string' },
  });
  if (!values.name) throw new UsageError('--name is required');
  const role = (values.role as string | undefined) ?? 'admin';
  if (role !== 'admin' && role !== 'viewer') throw new UsageError('--role must be admin or viewer');
  const expires = values['expires-in'] as string | undefined;
  if (expires !== undefined && !/^\d+$/.test(expires))
    throw new UsageError('--expires-in takes a whole number of seconds');
  const res = await socketRequest(socketOf(values as { socket?: string }), 'POST', '/tokens', {
    name: values.name,
    role,
    ...(expires ? { expiresInSeconds: Number(expires) } : {}),
  });
  if (res.status !== 201) return apiError(res, io);
  const body = res.json() as { token: string; id: string };
  io.stdout.write(`${body.token}\n`);
  io.stderr.write(`Token ${body.id} created; it is shown only once.\n`);
  return EXIT.ok;
}

async function tokenList(
  args: string[],
  io: Io,
  socketOf: (v: { socket?: string }) => string,
): Promise<number> {
  const { values } = parse(args, { socket: { type: 'string' } });
  const res = await socketRequest(socketOf(values as { socket?: string }), 'GET', '/tokens');
  if (res.status !== 200) return apiError(res, io);
  const { tokens } = res.json() as {
    tokens: Array<{ id: string; role: string; name: string; username: string; expiresAt: string | null }>;
  };
  for (const t of tokens)
    io.stdout.write(`${t.id}\t${t.role}\t${t.name}\t${t.username}\t${t.expiresAt ?? 'never'}\n`);
  return EXIT.ok;
}

async function tokenRevoke(
  args: string[],
  io: Io,
  socketOf: (v: { socket?: string }) => string,
): Promise<number> {
  const { values, positionals } = parse(args, { socket: { type: 'string' } });
  const id = positionals[0];
  if (!id) throw new UsageError('give the id of the token to revoke');
  const res = await socketRequest(
    socketOf(values as { socket?: string }),
    'DELETE',
    `/tokens/${encodeURIComponent(id)}`,
  );
  if (res.status !== 204) return apiError(res, io);
  io.stderr.write(`Token ${id} revoked.\n`);
  return EXIT.ok;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
