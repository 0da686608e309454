import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from './testing/server-process.ts';

const CLI = path.join(import.meta.dirname, 'cli.ts');

interface Proc extends ServerProcess {
  socket: string;
}

/** Starts `appliance serve` as a real process on loopback and waits for its "listening" line. */
async function serve(root: string): Promise<Proc> {
  const socket = path.join(root, 's.sock');
  const p = await startServerProcess({ root, socket });
  return Object.assign(p, { socket });
}

function runCli(
  args: string[],
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=@appliance/source', CLI, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
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
      const admin = await runCli(
        ['admin', 'create', '--username', 'admin', '--password-stdin', '--socket', p.socket],
        'correct horse\n',
      );
      expect(admin.code).toBe(0);
      const tok = await runCli(['token', 'create', '--name', 'ci', '--socket', p.socket]);
      expect(tok.code).toBe(0);
      expect(tok.stdout).toMatch(/^apat_[0-9a-f]{64}\n$/);
      const token = tok.stdout.trim();
      const users = (await fetch(`${p.url}/api/v1/users`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json())) as { users: Array<{ username: string }> };
      expect(users.users.map((u) => u.username)).toEqual(['admin']);
      const list = await runCli(['token', 'list', '--socket', p.socket]);
      expect(list.stdout).toContain('\tadmin\tci\tadmin\tnever');
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
    const wrong = await runCli([
      'serve',
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
    const missing = await runCli([
      'serve',
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
      const second = await runCli([
        'serve',
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

describe('the CLI', { timeout: 180_000 }, () => {
  it('exits 3 when the socket is missing, 2 on usage errors, and prints help', async () => {
    const missing = await runCli(['token', 'create', '--name', 'ci', '--socket', '/nonexistent/x.sock']);
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
    expect((await runCli(['token', 'create'])).code).toBe(2);
    expect((await runCli(['frobnicate'])).code).toBe(2);
    expect((await runCli(['admin', 'create', '--username', 'a'])).code).toBe(2);
    const help = await runCli(['token', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--expires-in');
    expect((await runCli(['--help'])).stdout).toContain('appliance serve');
  });

  it('asks for the password twice on a terminal without echoing it, even typed the moment the prompt shows', async () => {
    const root = newRoot();
    const p = await serve(root);
    try {
      // A pseudo-terminal (util-linux `script`); each answer is typed the moment its prompt shows.
      const cmd = [process.execPath, '--conditions=@appliance/source', CLI, 'admin', 'create']
        .concat(['--username', 'admin', '--socket', p.socket])
        .map((a) => `'${a}'`)
        .join(' ');
      const child = spawn('script', ['-qfec', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      let answered = 0;
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        for (const n = (out.match(/password: /gi) ?? []).length; answered < n; answered++) {
          child.stdin.write('typed at once\n');
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(out).toContain('Password: ');
      expect(out).toContain('Created the administrator admin.');
      expect(out).not.toContain('typed at once');
      expect(answered).toBe(2);
      const tokens = await fetch(`${p.url}/api/v1/tokens`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('admin:typed at once').toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'x', role: 'admin' }),
      });
      expect(tokens.status).toBe(201);
    } finally {
      await p.stop();
    }
  });

  it('exits 1 with code and message when the API refuses', async () => {
    const root = newRoot();
    const p = await serve(root);
    try {
      const r = await runCli(['token', 'create', '--name', 'x', '--socket', p.socket]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('setup_required:');
    } finally {
      await p.stop();
    }
  });
});
