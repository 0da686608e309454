/**
 * The real probes: host tools through the project's CommandRunner looked up where the service looks
 * them up (its tool path: `APPLIANCE_TOOL_PATH`, else the fixed `/usr/sbin:/usr/bin:/sbin:/bin`,
 * never the PATH doctor was started with), files with node:fs, the Docker Engine over its Unix
 * socket (as the service reaches it), certificates with node:crypto.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import {
  type CommandRunner,
  createCommandRunner,
  DEBIAN_PACKAGE,
  HOST_PATH,
  isAppError,
} from '@appliance/common';
import type { ComposeFact, DockerFact, StateDirFact, TlsPairFact, ToolFact } from '../core/facts.ts';
import type { Probes } from '../gather.ts';

const TIMEOUT_MS = 10_000;

export interface RealProbeOptions {
  /** The environment doctor runs in: APPLIANCE_TOOL_PATH (as the service's), DOCKER_HOST the engine. */
  env: Readonly<Record<string, string | undefined>>;
  runner?: CommandRunner;
}

export function createRealProbes(options: RealProbeOptions): Probes {
  const { env } = options;
  const runner =
    options.runner ??
    createCommandRunner({ timeoutMs: TIMEOUT_MS, path: env['APPLIANCE_TOOL_PATH'] || HOST_PATH });
  const toolEnv = env['DOCKER_HOST'] ? { DOCKER_HOST: env['DOCKER_HOST'] } : {};
  const version = async (cmd: string, args: readonly string[]): Promise<string | null> => {
    try {
      const r = await runner.run(cmd, args, { env: toolEnv, timeoutMs: TIMEOUT_MS });
      return r.exitCode === 0 && !r.timedOut ? firstLine(r.stdout) : null;
    } catch (err) {
      if (isAppError(err)) return null; // not installed
      throw err;
    }
  };
  /**
   * A program built without a version (Debian's snapraid says "snapraid vnone"): the version of
   * the Debian package that installed it, from dpkg-query; the line as it is when dpkg has none.
   */
  const withPackageVersion = async (name: string, line: string): Promise<string> => {
    const bare = /\bvnone\b/.exec(line);
    const pkg = DEBIAN_PACKAGE[name];
    if (!bare || !pkg) return line;
    const v = await version('dpkg-query', ['--show', '--showformat=${Version}', pkg]);
    return v ? `${name} ${v} (Debian package ${pkg}; the program itself reports "vnone")` : line;
  };
  return {
    nodeVersion: () => process.versions.node,
    uid: () => process.getuid?.() ?? null,
    async tool(name, versionArgs): Promise<ToolFact> {
      try {
        const r = await runner.run(name, versionArgs, { timeoutMs: TIMEOUT_MS });
        const line = r.timedOut ? null : firstLine(r.stdout || r.stderr);
        return { found: true, version: line === null ? null : await withPackageVersion(name, line) };
      } catch (err) {
        if (isAppError(err) && err.code === 'not_configured') return { found: false };
        throw err;
      }
    },
    async compose(): Promise<ComposeFact> {
      const [plugin, standalone] = await Promise.all([
        version('docker', ['compose', 'version', '--short']),
        version('docker-compose', ['version', '--short']),
      ]);
      return { plugin, standalone };
    },
    docker: () => dockerPing(env['DOCKER_HOST']),
    async group(file, name) {
      const text = await fs.readFile(file, 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        const [n, , gid, members] = line.split(':');
        if (n === name && gid && /^\d+$/.test(gid))
          return { gid: Number(gid), members: (members ?? '').split(',').filter(Boolean) };
      }
      return null;
    },
    exists: (file) =>
      fs.access(file).then(
        () => true,
        () => false,
      ),
    tlsPair: readTlsPair,
    freeSpace,
  };
}

/** The first non-empty line, without a long parenthesised tail ("(libmount 2.38.1: selinux, …)"). */
export function firstLine(text: string): string | null {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!line) return null;
  const short = line.length > 50 && line.indexOf(' (') > 0 ? line.slice(0, line.indexOf(' (')) : line;
  return short.slice(0, 80);
}

/** GET /version on the Engine socket: DOCKER_HOST (unix:// only, like the service) or the default. */
export async function dockerPing(dockerHost: string | undefined): Promise<DockerFact> {
  let socket = '/var/run/docker.sock';
  if (dockerHost) {
    if (!dockerHost.startsWith('unix://'))
      return {
        socket: null,
        reachable: false,
        error: `DOCKER_HOST=${dockerHost} is not a unix:// socket, the only kind the service uses`,
      };
    socket = dockerHost.slice('unix://'.length);
  }
  return new Promise((resolve) => {
    const req = http.get({ socketPath: socket, path: '/version', timeout: 5_000, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        if (res.statusCode !== 200) {
          resolve({
            socket,
            reachable: false,
            error: `the Engine at ${socket} answered HTTP ${res.statusCode}`,
          });
          return;
        }
        let v: string | null = null;
        try {
          v = (JSON.parse(body) as { Version?: string }).Version ?? null;
        } catch {
          /* not JSON: reachable all the same */
        }
        resolve({ socket, reachable: true, version: v });
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'ENOENT'
          ? `no Engine socket at ${socket} (the daemon is not running)`
          : err.code === 'ECONNREFUSED'
            ? `the Engine socket ${socket} refuses connections (the daemon is not running)`
            : err.code === 'EACCES'
              ? `no permission to open ${socket}`
              : `the Engine at ${socket} did not answer: ${err.message}`;
      resolve({ socket, reachable: false, error: why });
    });
  });
}

export async function readTlsPair(certFile: string, keyFile: string): Promise<TlsPairFact> {
  const fact: TlsPairFact = {
    certFile,
    keyFile,
    cert: { state: 'missing', error: 'not read' },
    key: { state: 'missing', error: 'not read' },
    keyMode: null,
    keyMatches: null,
  };
  let cert: X509Certificate | null = null;
  const certPem = await readOrState(certFile);
  if (typeof certPem === 'object' && 'state' in certPem) fact.cert = certPem;
  else {
    try {
      cert = new X509Certificate(certPem);
      fact.cert = {
        state: 'ok',
        subject: cert.subject.replace(/\n/g, ', '),
        notBefore: new Date(cert.validFrom).toISOString(),
        notAfter: new Date(cert.validTo).toISOString(),
      };
    } catch (err) {
      fact.cert = { state: 'invalid', error: `not a PEM certificate (${(err as Error).message})` };
    }
  }
  const keyPem = await readOrState(keyFile);
  if (typeof keyPem === 'object' && 'state' in keyPem) fact.key = keyPem;
  else {
    fact.keyMode = await fs.stat(keyFile).then(
      (s) => s.mode & 0o7777,
      () => null,
    );
    try {
      const key = createPrivateKey(keyPem);
      fact.key = { state: 'ok' };
      if (cert) fact.keyMatches = cert.checkPrivateKey(key);
    } catch (err) {
      fact.key = { state: 'invalid', error: `not a PEM private key (${(err as Error).message})` };
    }
  }
  return fact;
}

async function readOrState(
  file: string,
): Promise<Buffer | { state: 'missing' | 'unreadable'; error: string }> {
  try {
    return await fs.readFile(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return e.code === 'ENOENT'
      ? { state: 'missing', error: 'the file does not exist' }
      : { state: 'unreadable', error: `cannot be read (${e.code ?? e.message})` };
  }
}

export async function freeSpace(dir: string): Promise<StateDirFact> {
  let measured = path.resolve(dir);
  for (;;) {
    try {
      const s = await fs.statfs(measured);
      return { path: dir, measured, freeBytes: s.bavail * s.bsize };
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const parent = path.dirname(measured);
      if (e.code !== 'ENOENT' || parent === measured)
        return { path: dir, measured, freeBytes: null, error: e.code ?? e.message };
      measured = parent;
    }
  }
}
