// `appliance doctor` as a real process on this machine (the README test command installs the
// Debian packages it checks for): a healthy sandbox, a PATH without a tool, a bad TLS pair.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TOOL_CHECKS, type JsonReport } from '@appliance/doctor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = path.join(import.meta.dirname, '..', 'cli.ts');
let dir: string;

function doctor(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--conditions=@appliance/source', CLI, 'doctor', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin', HOME: os.homedir(), ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A PATH of links to every tool doctor checks that is installed here, except `without`. */
function pathWithout(without: string[]): string {
  const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
  for (const t of [...TOOL_CHECKS.map((c) => c.tool), 'openssl', 'docker', 'docker-compose']) {
    if (without.includes(t)) continue;
    const found = execFileSync('sh', ['-c', 'command -v "$1" || true', 'sh', t], { encoding: 'utf8' }).trim();
    if (found) fs.symlinkSync(found, path.join(bin, t));
  }
  return bin;
}

function selfSigned(name: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '90',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  fs.chmodSync(key, 0o600);
  return { cert, key };
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-cli-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('appliance doctor (process)', () => {
  it('passes on this host in a --root sandbox: every required tool found, exit 0', () => {
    const root = fs.mkdtempSync(path.join(dir, 'root-'));
    const r = doctor(['--root', root]);
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^ {2}ok {4}mkfs\.xfs +mkfs\.xfs version \d/m);
    expect(r.stdout).toMatch(
      /^ {2}ok {4}state directory space +[\d.]+ \w+ free for .*\/var\/lib\/appliance/m,
    );
    expect(r.stdout).not.toMatch(/^ {2}FAIL/m);
  });

  it('fails without mkfs.xfs on PATH and names the Debian package that brings it', () => {
    const root = fs.mkdtempSync(path.join(dir, 'root-'));
    const r = doctor(['--root', root], { PATH: pathWithout(['mkfs.xfs', 'age']) });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ {2}FAIL {2}mkfs\.xfs +not installed/m);
    expect(r.stdout).toContain('fix: apt-get install xfsprogs');
    expect(r.stdout).toMatch(/^ {2}warn {2}age +not installed/m);
    expect(r.stdout).toContain('fix: apt-get install age');
    expect(r.stdout).toContain('the service cannot do its job');
  });

  it('fails a configured TLS key that belongs to another certificate (--json)', () => {
    const root = fs.mkdtempSync(path.join(dir, 'root-'));
    const a = selfSigned('a');
    const b = selfSigned('b');
    const config = path.join(root, 'config.toml');
    fs.writeFileSync(
      config,
      `[server]\nlisten = "0.0.0.0:8443"\ntls = "on"\ntlsCert = "${a.cert}"\ntlsKey = "${b.key}"\n`,
    );
    const r = doctor(['--config', config, '--root', root, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.id === 'tls')).toMatchObject({
      status: 'fail',
      required: true,
      detail: expect.stringContaining('does not belong to the certificate'),
    });
    fs.writeFileSync(
      config,
      `[server]\nlisten = "0.0.0.0:8443"\ntlsCert = "${a.cert}"\ntlsKey = "${a.key}"\n`,
    );
    const good = JSON.parse(doctor(['--config', config, '--root', root, '--json']).stdout) as JsonReport;
    expect(good.checks.find((c) => c.id === 'tls')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('CN=a'),
    });
  });

  it('reports a configuration file that does not load', () => {
    const config = path.join(dir, 'bad.toml');
    fs.writeFileSync(config, '[server]\nlisten = "nowhere"\n');
    const r = doctor(['--config', config]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}configuration +listen must be HOST:PORT/);
  });

  it('answers a usage error with exit 2 and --help with exit 0', () => {
    const bad = doctor(['--frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('usage error');
    const help = doctor(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit status: 0 nothing required is missing');
  });
});
