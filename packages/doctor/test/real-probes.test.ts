// The real probes on this machine: the README test command installs every tool doctor checks for
// (tools/install-host-deps.sh), so here they are found; a PATH without one shows the fix.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { CommandRunner } from '@appliance/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealProbes, dockerPing, evaluate, freeSpace, readTlsPair, TOOL_CHECKS } from '../src/index.ts';

let dir: string;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

function selfSigned(name: string, days = 30): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}.key`);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    String(days),
    '-subj',
    `/CN=${name}`,
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  fs.chmodSync(key, 0o600);
  return { cert, key };
}

/** A directory of symbolic links to every tool on PATH that doctor checks, except `without`. */
export function pathWithout(root: string, without: string[]): string {
  const bin = fs.mkdtempSync(path.join(root, 'bin-'));
  for (const t of [...TOOL_CHECKS.map((c) => c.tool), 'openssl', 'docker', 'docker-compose']) {
    if (without.includes(t)) continue;
    const found = execFileSync('sh', ['-c', 'command -v "$1" || true', 'sh', t], { encoding: 'utf8' }).trim();
    if (found) fs.symlinkSync(found, path.join(bin, t));
  }
  return bin;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-probes-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('real probes', () => {
  it('finds the host tools the test command installed, with their versions', async () => {
    const probes = createRealProbes({ env: process.env });
    for (const tool of [
      'mkfs.xfs',
      'blkid',
      'mergerfs',
      'snapraid',
      'testparm',
      'age',
      'restic',
      'rsync',
      'smartctl',
      'getfacl',
      'getfattr',
    ]) {
      const fact = await probes.tool(tool, TOOL_CHECKS.find((t) => t.tool === tool)!.versionArgs);
      expect(fact, tool).toMatchObject({ found: true });
    }
    expect(await probes.tool('mkfs.xfs', ['-V'])).toMatchObject({
      version: expect.stringMatching(/^mkfs\.xfs version \d/),
    });
    const compose = await probes.compose();
    expect(compose.plugin ?? compose.standalone).toMatch(/^\d+\.\d+/);
  });

  it('shows Debian\'s package version for snapraid, whose program says only "vnone"', async () => {
    const probes = createRealProbes({ env: process.env });
    const said = execFileSync('snapraid', ['--version'], { encoding: 'utf8' });
    const pkg = execFileSync('dpkg-query', ['--show', '--showformat=${Version}', 'snapraid'], {
      encoding: 'utf8',
    });
    const fact = await probes.tool('snapraid', ['--version']);
    if (/\bvnone\b/.test(said))
      expect(fact).toEqual({
        found: true,
        version: `snapraid ${pkg} (Debian package snapraid; the program itself reports "vnone")`,
      });
    else expect(fact).toEqual({ found: true, version: said.split('\n')[0]!.trim().slice(0, 80) });
  });

  it("keeps the program's own line when dpkg does not know the package (installed by hand)", async () => {
    const runner: CommandRunner = {
      resolve: async (c) => `/usr/bin/${c}`,
      run: async (command, args) => ({
        command,
        args,
        exitCode: command === 'dpkg-query' ? 1 : 0,
        stdout:
          command === 'dpkg-query' ? '' : 'snapraid vnone by Andrea Mazzoleni, http://www.snapraid.it\n',
        stderr: command === 'dpkg-query' ? 'dpkg-query: no packages found matching snapraid\n' : '',
        timedOut: false,
      }),
    };
    const probes = createRealProbes({ env: {}, runner });
    expect(await probes.tool('snapraid', ['--version'])).toEqual({
      found: true,
      version: 'snapraid vnone by Andrea Mazzoleni, http://www.snapraid.it',
    });
  });

  it("does not find a tool missing from the service's tool path, whatever doctor's own PATH", async () => {
    const probes = createRealProbes({
      env: { APPLIANCE_TOOL_PATH: pathWithout(dir, ['mkfs.xfs', 'snapraid']), PATH: process.env['PATH'] },
    });
    expect(await probes.tool('mkfs.xfs', ['-V'])).toEqual({ found: false });
    expect(await probes.tool('blkid', ['--version'])).toMatchObject({ found: true });
  });

  it("looks in the service's fixed PATH by default, not in doctor's own", async () => {
    const probes = createRealProbes({ env: { PATH: pathWithout(dir, ['mkfs.xfs']) } });
    expect(await probes.tool('mkfs.xfs', ['-V'])).toMatchObject({ found: true });
  });

  it('reads a matching pair, and tells a key of another certificate apart', async () => {
    const a = selfSigned('a');
    const b = selfSigned('b');
    const good = await readTlsPair(a.cert, a.key);
    expect(good).toMatchObject({
      cert: { state: 'ok', subject: 'CN=a' },
      key: { state: 'ok' },
      keyMatches: true,
      keyMode: 0o600,
    });
    expect(await readTlsPair(a.cert, b.key)).toMatchObject({ keyMatches: false });
    fs.writeFileSync(path.join(dir, 'junk.pem'), 'not a certificate\n');
    expect(await readTlsPair(path.join(dir, 'junk.pem'), a.key)).toMatchObject({
      cert: { state: 'invalid' },
    });
    expect(await readTlsPair(path.join(dir, 'absent.pem'), a.key)).toMatchObject({
      cert: { state: 'missing' },
    });
  });

  it('judges a real certificate expired once its notAfter has passed', async () => {
    const c = selfSigned('short', 1);
    const pair = await readTlsPair(c.cert, c.key);
    const facts = {
      node: { version: process.versions.node },
      uid: 0,
      config: { ok: true as const, file: '/x', exists: false, root: '' },
      tools: {},
      compose: { plugin: null, standalone: null },
      docker: { socket: null, reachable: false as const, error: 'x' },
      socketGroup: null,
      tls: { use: true as const, source: 'configured' as const, pair },
      stateDir: null,
    };
    const later = new Date(Date.now() + 3 * 86_400_000);
    expect(evaluate(facts, { now: later }).find((v) => v.id === 'tls')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('CN=short expired on'),
    });
    expect(evaluate(facts, { now: new Date() }).find((v) => v.id === 'tls')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('expires in 0 days'),
    });
  });

  it('reaches a Docker Engine API on a Unix socket, and reports one that is not there', async () => {
    const socket = path.join(dir, 'docker.sock');
    const server = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/version' ? '{"Version":"99.1.0"}' : '{}');
    });
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      expect(await dockerPing(`unix://${socket}`)).toEqual({ socket, reachable: true, version: '99.1.0' });
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await dockerPing(`unix://${socket}`)).toMatchObject({
      reachable: false,
      error: expect.stringContaining('not running'),
    });
    expect(await dockerPing('tcp://10.0.0.1:2375')).toMatchObject({ reachable: false, socket: null });
  });

  it('measures free space at the nearest existing parent of a state directory not created yet', async () => {
    const fact = await freeSpace(path.join(dir, 'var', 'lib', 'appliance'));
    expect(fact.measured).toBe(dir);
    expect(fact.freeBytes).toBeGreaterThan(0);
  });
});
