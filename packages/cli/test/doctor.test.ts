// `appliance doctor` of the operator's CLI as a real process on this machine (the README test
// command installs the Debian packages it checks for): handed to @appliance/doctor with the
// service's own configuration loader. A healthy sandbox, a PATH without a tool, a bad TLS pair, a
// configuration that does not load (the checks themselves are unit-tested in packages/doctor).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type JsonReport, TOOL_CHECKS } from '@appliance/doctor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliance } from './support.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-doctor-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const doctor = (args: string[], env: Record<string, string> = {}) => appliance(['doctor', ...args], { env });

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
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '90', '-subj', `/CN=${name}`].concat([
      '-keyout',
      key,
      '-out',
      cert,
    ]),
    { stdio: 'ignore' },
  );
  fs.chmodSync(key, 0o600);
  return { cert, key };
}

describe('appliance doctor', () => {
  it('checks the host for a --root sandbox and prints the verdicts as JSON', async () => {
    const r = await doctor(['--root', dir, '--json']);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(report.root).toBe(dir);
    expect(report.configFile).toBe(path.join(dir, 'etc/appliance/config.toml'));
    expect(report.checks.find((c) => c.id === 'mkfs.xfs')).toMatchObject({ required: true, status: 'ok' });
    expect(r.code).toBe(report.ok ? 0 : 1);
  });

  it('passes on this host in a --root sandbox: every required tool found, exit 0', async () => {
    const root = fs.mkdtempSync(path.join(dir, 'root-'));
    const r = await doctor(['--root', root]);
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^ {2}ok {4}mkfs\.xfs +mkfs\.xfs version \d/m);
    expect(r.stdout).toMatch(
      /^ {2}ok {4}state directory space +[\d.]+ \w+ free for .*\/var\/lib\/appliance/m,
    );
    expect(r.stdout).not.toMatch(/^ {2}FAIL/m);
  });

  it('fails without mkfs.xfs on the service tool path and names the Debian package that brings it', async () => {
    const root = fs.mkdtempSync(path.join(dir, 'root-'));
    const r = await doctor(['--root', root], { APPLIANCE_TOOL_PATH: pathWithout(['mkfs.xfs', 'age']) });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ {2}FAIL {2}mkfs\.xfs +not installed/m);
    expect(r.stdout).toContain('fix: apt-get install xfsprogs');
    expect(r.stdout).toMatch(/^ {2}warn {2}age +not installed/m);
    expect(r.stdout).toContain('fix: apt-get install age');
    expect(r.stdout).toContain('the service cannot do its job');
  });

  it('fails a configured TLS key that belongs to another certificate (--json)', async () => {
    const root = fs.mkdtempSync(path.join(dir, 'root-'));
    const a = selfSigned('a');
    const b = selfSigned('b');
    const config = path.join(root, 'config.toml');
    fs.writeFileSync(
      config,
      `[server]\nlisten = "0.0.0.0:8443"\ntls = "on"\ntlsCert = "${a.cert}"\ntlsKey = "${b.key}"\n`,
    );
    const r = await doctor(['--config', config, '--root', root, '--json']);
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
    const good = JSON.parse(
      (await doctor(['--config', config, '--root', root, '--json'])).stdout,
    ) as JsonReport;
    expect(good.checks.find((c) => c.id === 'tls')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('CN=a'),
    });
  });

  it('reads the configuration with the service loader: a bad file fails the check', async () => {
    const config = path.join(dir, 'bad.toml');
    fs.writeFileSync(config, '[server]\nlisten = "nowhere"\n');
    const r = await doctor(['--config', config]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}configuration +listen must be HOST:PORT/);
  });

  it('is listed in the help, answers --help (0) and a usage error (2)', async () => {
    expect((await appliance(['--help'])).stdout).toMatch(/doctor \[options\.\.\.\] +check that this host/);
    const help = await doctor(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('appliance doctor [--config PATH]');
    expect(help.stdout).toContain('Exit status: 0 nothing required is missing');
    const bad = await doctor(['--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('usage error');
  });
});
