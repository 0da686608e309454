/**
 * The SMB side of the shares system tests (issue 24): the real `smbclient` against the sandboxed
 * smbd on 127.0.0.1, one command per connection or an interactive session kept open (commands on
 * stdin). The client has its own smb.conf and directories, so it never writes to the machine's
 * Samba directories either.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface Credentials {
  username: string;
  password: string;
}

/** `anonymous` = no user (`-N`); `guest` = the user name guest with an empty password. */
export type Who = Credentials | 'anonymous' | 'guest';

export interface SmbResult {
  ok: boolean;
  /** The first NT_STATUS code in the output, or null. */
  status: string | null;
  output: string;
}

export interface SmbClient {
  /** Runs `commands` (smbclient `-c` syntax) on a new connection to `share`. */
  run(who: Who, share: string, commands: string): Promise<SmbResult>;
  /** An interactive connection kept open until `close()`. */
  open(who: Who, share: string): Promise<SmbSession>;
  /** Every session still open (for afterAll). */
  closeAll(): Promise<void>;
}

export interface SmbSession {
  /** Runs one command on the open connection; resolves with its output. */
  command(line: string): Promise<SmbResult>;
  /** Whether the smbclient process is still running. */
  alive(): boolean;
  close(): Promise<void>;
}

const statusOf = (text: string): string | null => /NT_STATUS_[A-Z_]+/.exec(text)?.[0] ?? null;

/** A client configuration under `dir` (its own lock, state, cache and private directories). */
export function createSmbClient(options: { port: number; dir: string }): SmbClient {
  const { port } = options;
  fs.mkdirSync(options.dir, { recursive: true });
  const conf = path.join(options.dir, 'client.conf');
  const sub = (n: string) => {
    const d = path.join(options.dir, n);
    fs.mkdirSync(d, { recursive: true, mode: 0o700 });
    return d;
  };
  fs.writeFileSync(
    conf,
    [
      '[global]',
      `   lock directory = ${sub('lock')}`,
      `   state directory = ${sub('state')}`,
      `   cache directory = ${sub('cache')}`,
      `   private dir = ${sub('private')}`,
      `   pid directory = ${sub('pid')}`,
      `   ncalrpc dir = ${sub('ncalrpc')}`,
      '   client min protocol = SMB2',
      '',
    ].join('\n'),
  );
  const baseArgs = (who: Who, share: string): { args: string[]; env: Record<string, string> } => {
    const args = [`//127.0.0.1/${share}`, '-p', String(port), '-s', conf];
    const env: Record<string, string> = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LC_ALL: 'C' };
    if (who === 'anonymous') args.push('-N');
    else if (who === 'guest') args.push('-U', 'guest%');
    else {
      // the password through the environment, not the command line
      args.push('-U', who.username);
      env['PASSWD'] = who.password;
    }
    return { args, env };
  };
  const sessions = new Set<SmbSession>();

  return {
    run(who, share, commands) {
      const { args, env } = baseArgs(who, share);
      return new Promise((resolve) => {
        execFile('smbclient', [...args, '-c', commands], { env, timeout: 30_000 }, (err, stdout, stderr) => {
          const output = `${stdout}${stderr}`;
          const status = statusOf(output);
          resolve({ ok: !err && status === null, status, output });
        });
      });
    },
    async open(who, share) {
      const { args, env } = baseArgs(who, share);
      // line-buffered: into a pipe, smbclient's output would otherwise wait for its exit
      const child = spawn('stdbuf', ['-oL', '-eL', 'smbclient', ...args], {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const session = interactive(child);
      sessions.add(session);
      const first = await session.command('pwd');
      if (!first.ok) {
        await session.close();
        sessions.delete(session);
        throw new Error(`smbclient could not open //127.0.0.1/${share}: ${first.output}`);
      }
      return {
        ...session,
        async close() {
          sessions.delete(session);
          await session.close();
        },
      };
    },
    async closeAll() {
      for (const s of [...sessions]) await s.close();
      sessions.clear();
    },
  };
}

/**
 * smbclient reading commands from a pipe prints no prompt, so each command is followed by `pwd`,
 * whose "Current directory is" line marks the end of the command's output. The two lines go in two
 * writes: smbclient waits for its input to become readable before reading a line, so a second line
 * that arrived together with the first would sit in its buffer until more input came.
 */
function interactive(child: ChildProcess): SmbSession {
  let buffer = '';
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  child.stdout!.on('data', (d: Buffer) => (buffer += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (buffer += d.toString()));
  child.stdin!.on('error', () => undefined);
  const MARK = /Current directory is [^\n]*\n/;
  let queue: Promise<unknown> = Promise.resolve();

  const command = (line: string): Promise<SmbResult> => {
    const next = queue.then(async () => {
      buffer = '';
      if (exited) return { ok: false, status: 'CLIENT_EXITED', output: '' };
      if (line !== 'pwd') {
        child.stdin!.write(`${line}\n`);
        // the command has been read once it answers something (every command used here does)
        const answered = Date.now() + 1_000;
        while (buffer === '' && !exited && Date.now() < answered) await new Promise((r) => setTimeout(r, 10));
      }
      child.stdin!.write('pwd\n');
      const end = Date.now() + 30_000;
      while (!MARK.test(buffer) && !exited) {
        if (Date.now() > end) throw new Error(`smbclient did not answer "${line}": ${buffer}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const output = buffer.replace(MARK, '');
      const status = statusOf(output) ?? (exited && !MARK.test(buffer) ? 'CLIENT_EXITED' : null);
      return { ok: status === null, status, output };
    });
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    command,
    alive: () => !exited,
    async close() {
      if (!exited) {
        child.stdin!.end('exit\n');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exit;
        clearTimeout(timer);
      }
    },
  };
}
