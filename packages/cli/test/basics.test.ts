/**
 * The command itself: help and exit codes, the setup and token commands over the socket, HTTPS
 * with --url and APPLIANCE_TOKEN, and `serve` handed to the service's launcher.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTlsFiles } from '@appliance/lab';
import { appliance, CLI, onTerminal, TOKEN_PATTERN } from './support.ts';

describe('help and exit codes', () => {
  it('stops quietly when the reader has closed the pipe (appliance --help | true)', async () => {
    // `true` exits without reading: the CLI's first write meets a closed pipe (EPIPE).
    const cmd = `set -o pipefail; "${process.execPath}" --conditions=@appliance/source "${CLI}" --help | true`;
    const child = spawn('bash', ['-c', cmd], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });

  it('documents the exit codes in --help (exit 0)', async () => {
    const r = await appliance(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit status:');
    for (const line of [
      '0  success',
      '1  the API answered an error',
      '2  usage error',
      '3  the service cannot be reached',
    ])
      expect(r.stdout).toContain(line);
    for (const cmd of [
      'users',
      'shares',
      'disks',
      'array',
      'external',
      'notifications',
      'templates',
      'config',
      'serve',
    ])
      expect(r.stdout).toMatch(new RegExp(`\\n  ${cmd}\\b`));
  });

  it('documents the progress and Ctrl-C of each watched operation in its --help', async () => {
    for (const [cmd, sample] of [
      [['array', 'create'], 'array.create /mnt/user: '],
      [['external', 'format'], 'disks.external.format backup: step 2/4: mkfs, 1s'],
      [['shares', 'delete-data'], 'share_data.delete media: 1200 files, 80 directories, 1.1 GiB deleted, 3s'],
      [['templates', 'install'], 'template.install NAME: step 2/4: '],
    ] as const) {
      const r = await appliance([...cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /\nProgress: .+\.\nIt is shown with the elapsed time on stderr, fed by GET \/events/,
      );
      expect(r.stdout).toContain(`\n  ${sample}`);
      expect(r.stdout).toContain('Ctrl-C stops watching, not the operation (exit 130)');
      expect(r.stdout).toContain('appliance events --progress');
    }
  });

  it('answers a usage error with exit 2: no command, unknown command or option, missing argument', async () => {
    expect((await appliance([])).code).toBe(2);
    const unknown = await appliance(['userz', 'list']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'userz'");
    expect((await appliance(['users', 'list', '--colour'])).code).toBe(2);
    expect((await appliance(['users', 'create'])).code).toBe(2);
    expect((await appliance(['shares'])).code).toBe(2);
    const noName = await appliance(['token', 'create']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('--name');
    const help = await appliance(['token', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--expires-in');
  });

  it('answers exit 3 when the socket is missing', async () => {
    const r = await appliance(['users', 'list', '--socket', '/nonexistent/appliance.sock']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Cannot reach the appliance service at /nonexistent/appliance.sock (ENOENT)');
    const env = await appliance(['users', 'list'], { env: { APPLIANCE_SOCKET: '/nonexistent/x.sock' } });
    expect(env.code).toBe(3);
    expect(env.stderr).toContain('/nonexistent/x.sock');
    const token = await appliance(['token', 'create', '--name', 'ci', '--socket', '/nonexistent/x.sock']);
    expect(token.code).toBe(3);
    expect(token.stdout).toBe('');
    const exported = await appliance([
      'config',
      'export',
      '--output',
      '-',
      '--socket',
      '/nonexistent/x.sock',
    ]);
    expect(exported.code).toBe(3);
    expect(exported.stdoutBytes.length).toBe(0);
  });
});

describe('admin create and tokens over the socket', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox({ admin: false, config: { logLevel: 'silent' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('admin create: stdin password (0), no terminal without --password-stdin (2), a second admin (1)', async () => {
    const early = await appliance(['token', 'create', '--name', 'ci', '--socket', s.socket]);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/^setup_required: /);
    expect(early.stdout).toBe('');
    const noTty = await appliance(['admin', 'create', '--username', 'admin', '--socket', s.socket]);
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain('--password-stdin');
    const ok = await appliance(
      ['admin', 'create', '--username', 'admin', '--password-stdin', '--socket', s.socket],
      {
        input: 'correct horse\n',
      },
    );
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain('Created the administrator admin.');
    const again = await appliance(
      ['admin', 'create', '--username', 'root2', '--password-stdin', '--socket', s.socket],
      {
        input: 'correct horse\n',
      },
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^setup_complete: /);
  });

  it('users create --password-prompt asks twice without echo on a terminal; a mismatch is refused (2)', async () => {
    const ok = await onTerminal(
      ['users', 'create', 'alice', '--role', 'viewer', '--password-prompt', '--socket', s.socket],
      [
        ['Password: ', 'alice password'],
        ['Repeat password: ', 'alice password'],
      ],
    );
    expect(ok.code, ok.screen).toBe(0);
    expect(ok.screen).not.toContain('alice password');
    expect(ok.screen).toMatch(/password: +set/);
    const users = (await s.call('GET', '/users', undefined, { via: 'unix' })).body.users;
    expect(users.find((u: { username: string }) => u.username === 'alice').hasPassword).toBe(true);
    const mismatch = await onTerminal(
      ['users', 'create', 'bob', '--password-prompt', '--socket', s.socket],
      [
        ['Password: ', 'one password'],
        ['Repeat password: ', 'another one'],
      ],
    );
    expect(mismatch.code).toBe(2);
    expect(mismatch.screen).toContain('the passwords do not match');
    const none = (await s.call('GET', '/users', undefined, { via: 'unix' })).body.users;
    expect(none.map((u: { username: string }) => u.username)).toEqual(['admin', 'alice']);
    expect((await appliance(['users', 'list', '--socket', s.socket, '--url', 'https://x'])).code).toBe(2);
  });

  it('token create prints only the token; list and revoke; a refusal exits 1', async () => {
    const r = await appliance(['token', 'create', '--name', 'ci', '--socket', s.socket]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(TOKEN_PATTERN);
    const list = await appliance(['token', 'list', '--socket', s.socket, '--json']);
    const api = (await s.call('GET', '/tokens', undefined, { via: 'unix' })).body;
    expect(JSON.parse(list.stdout)).toEqual(api);
    const id = api.tokens[0].id as string;
    const table = await appliance(['token', 'list', '--socket', s.socket]);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+ROLE\s+OWNER\s+CREATED\s+EXPIRES$/);
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+ci\\s+admin\\s+admin\\s+\\S.*\\s+never`));
    expect(
      (await appliance(['token', 'create', '--name', 'x', '--role', 'root', '--socket', s.socket])).code,
    ).toBe(2);
    const bad = await appliance([
      'token',
      'revoke',
      '00000000-0000-4000-8000-000000000000',
      '--socket',
      s.socket,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^token_not_found: /);
    expect((await appliance(['token', 'revoke', id, '--socket', s.socket])).code).toBe(0);
    expect((await s.call('GET', '/tokens', undefined, { via: 'unix' })).body.tokens).toEqual([]);
  });
});

describe('admin create on a terminal', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await startSandbox({ admin: false, config: { logLevel: 'silent' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a second answer that differs: refused (2), nothing sent', async () => {
    const r = await onTerminal(
      ['admin', 'create', '--username', 'admin', '--socket', s.socket],
      [
        ['Password: ', 'one password'],
        ['Repeat password: ', 'another one'],
      ],
    );
    expect(r.code).toBe(2);
    expect(r.screen).toContain('the passwords do not match');
    expect((await s.call('GET', '/setup/status')).body).toEqual({ setupRequired: true });
  });

  it('asks twice without echo, each answer typed the moment its prompt shows; the password then works', async () => {
    const r = await onTerminal(
      ['admin', 'create', '--username', 'admin', '--socket', s.socket],
      [
        ['Password: ', 'typed at once'],
        ['Repeat password: ', 'typed at once'],
      ],
    );
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).toContain('Created the administrator admin.');
    expect(r.screen).not.toContain('typed at once');
    const basic = Buffer.from('admin:typed at once').toString('base64');
    const token = await s.call(
      'POST',
      '/tokens',
      { name: 'x', role: 'admin' },
      { token: null, headers: { authorization: `Basic ${basic}` } },
    );
    expect(token.status).toBe(201);
  });
});

describe('HTTPS with --url and APPLIANCE_TOKEN', () => {
  let s: Sandbox;
  let tls: ReturnType<typeof makeTlsFiles>;
  let token: string;
  beforeAll(async () => {
    tls = makeTlsFiles();
    s = await startSandbox({
      admin: false,
      config: { tls: 'on', tlsCert: tls.cert, tlsKey: tls.key, logLevel: 'silent' },
    });
    await appliance(['admin', 'create', '--username', 'admin', '--password-stdin', '--socket', s.socket], {
      input: 'correct horse',
    });
    token = (await appliance(['token', 'create', '--name', 'laptop', '--socket', s.socket])).stdout.trim();
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(tls.dir, { recursive: true, force: true });
  });

  it('works with the CA given, refuses a wrong token (1) and an untrusted certificate (3)', async () => {
    expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:/);
    const ok = await appliance(['users', 'list', '--url', s.url, '--ca', tls.ca, '--json'], {
      env: { APPLIANCE_TOKEN: token },
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).users.map((u: { username: string }) => u.username)).toEqual(['admin']);
    const viaEnv = await appliance(['users', 'list'], {
      env: { APPLIANCE_URL: s.url, APPLIANCE_CA: tls.ca, APPLIANCE_TOKEN: token },
    });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout).toMatch(/^USERNAME\s+ROLE/);
    const wrong = await appliance(['users', 'list', '--url', s.url, '--ca', tls.ca], {
      env: { APPLIANCE_TOKEN: `apat_${'0'.repeat(64)}` },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^unauthorized: /);
    const untrusted = await appliance(['users', 'list', '--url', s.url], { env: { APPLIANCE_TOKEN: token } });
    expect(untrusted.code).toBe(3);
    expect(untrusted.stderr).toContain('--ca');
    expect((await appliance(['users', 'list', '--url', 'ftp://x'])).code).toBe(2);
  });
});

describe('serve', () => {
  /**
   * `appliance serve` in a fresh root on loopback, with only PATH and `env` in its environment;
   * resolves once it printed its listening line. `stop()` sends SIGTERM and resolves with the exit code.
   */
  const serve = async (env: NodeJS.ProcessEnv = {}) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-cli-serve-'));
    const socket = path.join(root, 'run', 'x.sock');
    const child = spawn(
      process.execPath,
      [
        '--conditions=@appliance/source',
        CLI,
        'serve',
        '--root',
        root,
        '--listen',
        '127.0.0.1:0',
        '--socket',
        socket,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '', ...env } },
    );
    const served = { root, socket, url: '', out: '' };
    child.stdout.on('data', (d: Buffer) => (served.out += d));
    child.stderr.on('data', (d: Buffer) => (served.out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const stop = () => {
      child.kill('SIGTERM');
      return exited;
    };
    const end = Date.now() + 30_000;
    while (!served.out.includes('"msg":"listening"')) {
      if (Date.now() > end) {
        await stop();
        throw new Error(`no listening line: ${served.out}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const line = served.out.split('\n').find((l) => l.includes('"msg":"listening"'))!;
    served.url = (JSON.parse(line) as { url: string }).url;
    return { ...served, out: () => served.out, stop };
  };

  it("hands over to the service's launcher (appliance-server): it listens, the CLI sets it up, no secret in its output, it stops on SIGTERM", async () => {
    const server = await serve();
    const { url, socket } = server;
    let code: number | null;
    try {
      const r = await appliance(
        ['admin', 'create', '--username', 'admin', '--password-stdin', '--socket', socket],
        { input: 'correct horse\n' },
      );
      expect(r.code).toBe(0);
      const tok = await appliance(['token', 'create', '--name', 'ci', '--socket', socket]);
      expect(tok.code).toBe(0);
      expect(tok.stdout).toMatch(TOKEN_PATTERN);
      const token = tok.stdout.trim();
      const users = (await fetch(`${url}/api/v1/users`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((res) => res.json())) as { users: Array<{ username: string }> };
      expect(users.users.map((u) => u.username)).toEqual(['admin']);
      const list = await appliance(['token', 'list', '--socket', socket]);
      expect(list.stdout).toMatch(/\s+ci\s+admin\s+admin\s+\S.*\s+never\n/);
      expect(server.out()).not.toContain(token.slice(5));
      expect(server.out()).not.toContain('correct horse');
    } finally {
      code = await server.stop();
    }
    expect(code).toBe(0);
    expect(fs.existsSync(socket)).toBe(false);
    fs.rmSync(server.root, { recursive: true, force: true });
  });

  it("keeps Node's compile cache in the unit's cache directory (CACHE_DIRECTORY); NODE_DISABLE_COMPILE_CACHE=1 or an unusable directory keeps none", async () => {
    /** Serves until the launcher has written its compile cache (about a second after start). */
    const serveOnce = async (env: NodeJS.ProcessEnv) => {
      const server = await serve(env);
      await new Promise((r) => setTimeout(r, 1800));
      expect(await server.stop()).toBe(0);
      fs.rmSync(server.root, { recursive: true, force: true });
    };
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-cli-cache-'));
    try {
      await serveOnce({ CACHE_DIRECTORY: path.join(cache, 'on') });
      const files = fs.readdirSync(path.join(cache, 'on', 'node-compile-cache'), { recursive: true });
      expect(files.length).toBeGreaterThan(0);
      await serveOnce({ CACHE_DIRECTORY: path.join(cache, 'off'), NODE_DISABLE_COMPILE_CACHE: '1' });
      expect(fs.existsSync(path.join(cache, 'off'))).toBe(false);
      // a cache directory that cannot be created (Node 24.21 would spin on it): started, no cache
      await serveOnce({ HOME: '/proc' });
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  it("runs with glibc's tunables set (a caller's after them), answers through @hono/node-server, and loads node:https only for a TLS listener", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-cli-lean-'));
    const report = path.join(dir, 'report.json');
    const probe = path.join(dir, 'probe.cjs');
    // Written as the service exits: the built-in modules it loaded and the tunables it ran with.
    fs.writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify({ modules: process.moduleLoadList, tunables: process.env.GLIBC_TUNABLES })));`,
    );
    try {
      const server = await serve({
        APPLIANCE_NODE_FLAGS: `--require ${probe}`,
        GLIBC_TUNABLES: 'glibc.malloc.arena_max=4',
      });
      // Answers through the adapter: a read, a refused body, an unknown path.
      const status = await fetch(`${server.url}/api/v1/setup/status`);
      expect([status.status, await status.json()]).toEqual([200, { setupRequired: true }]);
      const bad = await fetch(`${server.url}/api/v1/setup/admin`, {
        method: 'POST',
        body: '{"username":',
        headers: { 'content-type': 'application/json' },
      });
      expect([bad.status, ((await bad.json()) as { code: string }).code]).toEqual([400, 'bad_request']);
      expect((await fetch(`${server.url}/api/v1/nothing-here`)).status).toBe(404);
      expect(await server.stop()).toBe(0);
      fs.rmSync(server.root, { recursive: true, force: true });
      const { modules, tunables } = JSON.parse(fs.readFileSync(report, 'utf8')) as {
        modules: string[];
        tunables: string;
      };
      expect(tunables).toBe(
        'glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=131072:glibc.malloc.arena_max=4',
      );
      const loaded = (name: string) => modules.includes(`NativeModule ${name}`);
      // @hono/node-server extends undici's Request and Response (issue 33: the library over a few MiB).
      expect(loaded('http')).toBe(true);
      expect(loaded('internal/deps/undici/undici')).toBe(true);
      expect(loaded('https')).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes the launcher's refusal on: a usage error (2) and a configuration that does not load (1)", async () => {
    const bad = await appliance(['serve', '--frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('usage error');
    const help = await appliance(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('appliance-server [--config PATH]');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-cli-serve-'));
    const config = await appliance(['serve', '--listen', 'nowhere', '--root', root]);
    expect(config.code).toBe(1);
    expect(config.stderr).toContain('HOST:PORT');
    expect(fs.readdirSync(root)).toEqual([]);
    fs.rmSync(root, { recursive: true, force: true });
  });
});
