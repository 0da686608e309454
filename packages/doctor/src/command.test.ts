import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { doctorCommand } from './command.ts';
import type { JsonReport } from './core/report.ts';
import type { DoctorConfig, Probes } from './gather.ts';

function capture() {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d));
  err.on('data', (d: Buffer) => (stderr += d));
  return { io: { stdout: out, stderr: err, env: {} }, text: () => ({ stdout, stderr }) };
}

const baseConfig: DoctorConfig = {
  root: '/tmp/sbx',
  configFile: '/tmp/sbx/etc/appliance/config.toml',
  listen: { host: '0.0.0.0', port: 8008 },
  tls: 'auto',
  tlsCert: null,
  tlsKey: null,
  socket: '/tmp/sbx/run/appliance/appliance.sock',
};

/** Everything present except what `missing` names; `files` exist. */
function fakeProbes(opts: { missing?: string[]; files?: string[] } = {}): Probes & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    nodeVersion: () => '24.21.0',
    uid: () => 0,
    tool: async (name) => {
      asked.push(name);
      return opts.missing?.includes(name) ? { found: false } : { found: true, version: `${name} 1` };
    },
    compose: async () => ({ plugin: '2.29.0', standalone: null }),
    docker: async () => ({ socket: '/var/run/docker.sock', reachable: true, version: '28' }),
    group: async (file) => {
      asked.push(`group ${file}`);
      return { gid: 990, members: [] };
    },
    exists: async (file) => opts.files?.includes(file) ?? false,
    tlsPair: async (certFile, keyFile) => ({
      certFile,
      keyFile,
      cert: {
        state: 'ok',
        subject: 'CN=appliance',
        notBefore: '2026-01-01T00:00:00Z',
        notAfter: '2036-01-01T00:00:00Z',
      },
      key: { state: 'ok' },
      keyMode: 0o600,
      keyMatches: true,
    }),
    freeSpace: async (dir) => ({ path: dir, measured: dir, freeBytes: 10 * 1024 ** 3 }),
  };
}

const now = () => new Date('2026-11-25T12:00:00Z');

describe('doctorCommand', () => {
  it('passes the flags to the injected loader and reads the paths under the root prefix', async () => {
    const c = capture();
    const probes = fakeProbes({
      files: ['/tmp/sbx/etc/appliance/tls/cert.pem', '/tmp/sbx/etc/appliance/tls/key.pem'],
    });
    let flags: unknown;
    const code = await doctorCommand(['--root', '/tmp/sbx', '--json'], c.io, {
      loadConfig: (f) => {
        flags = f;
        return baseConfig;
      },
      probes,
      now,
    });
    expect(code).toBe(0);
    expect(flags).toEqual({ root: '/tmp/sbx' });
    const report = JSON.parse(c.text().stdout) as JsonReport;
    expect(report.root).toBe('/tmp/sbx');
    expect(report.checks.find((v) => v.id === 'tls')?.detail).toContain('(generated)');
    expect(report.checks.find((v) => v.id === 'state-dir')?.detail).toContain('/tmp/sbx/var/lib/appliance');
    expect(probes.asked).toContain('group /etc/group');
  });

  it('exits 1 when a required tool is missing and prints its package', async () => {
    const c = capture();
    const code = await doctorCommand([], c.io, {
      loadConfig: () => baseConfig,
      probes: fakeProbes({ missing: ['restic'] }),
      now,
    });
    expect(code).toBe(1);
    expect(c.text().stdout).toMatch(
      /FAIL {2}restic +not installed — writes, checks and restores the backups/,
    );
    expect(c.text().stdout).toContain('fix: apt-get install restic');
  });

  it('reports a configuration that does not load as a failure', async () => {
    const c = capture();
    const code = await doctorCommand(['--config', '/nope.toml'], c.io, {
      loadConfig: () => {
        throw new Error('The configuration file /nope.toml does not exist.');
      },
      probes: fakeProbes(),
      now,
    });
    expect(code).toBe(1);
    expect(c.text().stdout).toMatch(
      /FAIL {2}configuration +The configuration file \/nope.toml does not exist/,
    );
  });

  it('answers a usage error with exit 2 and --help with exit 0', async () => {
    const bad = capture();
    expect(
      await doctorCommand(['--bogus'], bad.io, { loadConfig: () => baseConfig, probes: fakeProbes() }),
    ).toBe(2);
    expect(bad.text().stderr).toContain('usage error');
    const help = capture();
    expect(
      await doctorCommand(['--help'], help.io, { loadConfig: () => baseConfig, probes: fakeProbes() }),
    ).toBe(0);
    expect(help.text().stdout).toContain('appliance doctor [--config PATH]');
  });
});
