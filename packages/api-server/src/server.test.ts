import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../test-support/server-process.ts';

const LAUNCHER = path.join(import.meta.dirname, 'launcher.ts');

interface Proc extends ServerProcess {
  socket: string;
}

/** Starts the service's launcher as a real process on loopback and waits for its "listening" line. */
async function serve(root: string): Promise<Proc> {
  const socket = path.join(root, 's.sock');
  const p = await startServerProcess({ root, socket });
  return Object.assign(p, { socket });
}

/** `appliance-server ARGS` (the sources), to its exit. */
function runLauncher(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=@appliance/source', LAUNCHER, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** One JSON request over the Unix socket (the caller is the local administrator). */
function overSocket<T = unknown>(
  socketPath: string,
  method: string,
  apiPath: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        socketPath,
        method,
        path: `/api/v1${apiPath}`,
        headers: payload ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const roots: string[] = [];
const newRoot = () => {
  const r = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-proc-'));
  roots.push(r);
  return r;
};
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

describe('the server as a real process', { timeout: 180_000 }, () => {
  it('answers on TCP and on the socket, keeps data across a restart, and stops gracefully', async () => {
    const root = newRoot();
    const p = await serve(root);
    try {
      const status = await fetch(`${p.url}/api/v1/setup/status`).then((r) => r.json());
      expect(status).toEqual({ setupRequired: true });
      const admin = await overSocket(p.socket, 'POST', '/setup/admin', {
        username: 'admin',
        password: 'correct horse',
      });
      expect(admin.status).toBe(201);
      const tok = await overSocket<{ token: string }>(p.socket, 'POST', '/tokens', {
        name: 'ci',
        role: 'admin',
      });
      expect(tok.status).toBe(201);
      const token = tok.body.token;
      expect(token).toMatch(/^apat_[0-9a-f]{64}$/);
      const users = (await fetch(`${p.url}/api/v1/users`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json())) as { users: Array<{ username: string }> };
      expect(users.users.map((u) => u.username)).toEqual(['admin']);
      const list = await overSocket<{ tokens: unknown[] }>(p.socket, 'GET', '/tokens');
      expect(list.body.tokens).toEqual([
        expect.objectContaining({ name: 'ci', role: 'admin', username: 'admin', expiresAt: null }),
      ]);
      expect(p.output()).not.toContain(token.slice(5));
      expect(p.output()).not.toContain('correct horse');
      expect(await p.stop()).toBe(0);
      expect(fs.existsSync(p.socket)).toBe(false);

      const again = await serve(root);
      try {
        const r = await fetch(`${again.url}/api/v1/users`, { headers: { authorization: `Bearer ${token}` } });
        expect(r.status).toBe(200);
        const mode = fs.statSync(path.join(root, 'etc/appliance/secret.key')).mode & 0o777;
        expect(mode).toBe(0o600);
        expect(fs.statSync(path.join(root, 'var/lib/appliance/state.db')).mode & 0o777).toBe(0o600);
        expect(fs.statSync(path.join(root, 'var/lib/appliance')).mode & 0o777).toBe(0o700);
      } finally {
        await again.stop();
      }
    } finally {
      if (p.child.exitCode === null) await p.stop();
    }
  });

  it('refuses to start with a wrong or missing machine key, with a clear message', async () => {
    const root = newRoot();
    const p = await serve(root);
    await p.stop();
    const keyFile = path.join(root, 'etc/appliance/secret.key');
    fs.writeFileSync(keyFile, Buffer.alloc(32, 7));
    const wrong = await runLauncher([
      '--root',
      root,
      '--listen',
      '127.0.0.1:0',
      '--socket',
      path.join(root, 's.sock'),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('does not belong to the database');
    fs.rmSync(keyFile);
    const missing = await runLauncher([
      '--root',
      root,
      '--listen',
      '127.0.0.1:0',
      '--socket',
      path.join(root, 's.sock'),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('is missing but a database exists');
    expect(fs.existsSync(keyFile)).toBe(false);
  });

  it('replaces a stale socket file and refuses to start beside a live one', async () => {
    const root = newRoot();
    const p = await serve(root);
    try {
      const second = await runLauncher([
        '--root',
        newRoot(),
        '--listen',
        '127.0.0.1:0',
        '--socket',
        p.socket,
      ]);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain('Another appliance service is answering');
    } finally {
      p.child.kill('SIGKILL');
      await new Promise((r) => p.child.once('exit', r));
    }
    expect(fs.existsSync(p.socket)).toBe(true);
    const restarted = await serve(root);
    expect((await fetch(`${restarted.url}/api/v1/setup/status`)).status).toBe(200);
    await restarted.stop();
  });
});

describe('the launcher (appliance-server)', () => {
  it('only runs the service: --help (0) points operators at appliance; a command word or a bad option is a usage error (2)', async () => {
    const help = await runLauncher(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('appliance-server [--config PATH] [--root DIR] [--listen HOST:PORT]');
    expect(help.stdout).toContain('`appliance serve …` runs this launcher');
    for (const word of ['serve', 'admin', 'token', 'doctor']) {
      const r = await runLauncher([word]);
      expect(r.code, word).toBe(2);
      expect(r.stderr).toContain(`appliance-server takes no command (got "${word}")`);
      expect(r.stderr).toContain(`\`appliance ${word}\``);
    }
    const bad = await runLauncher(['--frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^usage error: .*--frobnicate/);
  });

  it('exits 1 with the reason when the configuration does not load', async () => {
    const root = newRoot();
    const r = await runLauncher(['--root', root, '--listen', 'nowhere']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('HOST:PORT');
  });
});
