import { describe, expect, it } from 'vitest';
import { evaluate, formatBytes, STATE_DIR_MIN_BYTES, TOOL_CHECKS } from './checks.ts';
import type { Facts, TlsPairFact } from './facts.ts';
import { exitCodeOf, jsonReport, textReport } from './report.ts';

const now = new Date('2026-11-25T12:00:00Z');

function healthy(): Facts {
  const tools: Facts['tools'] = {};
  for (const t of TOOL_CHECKS) tools[t.tool] = { found: true, version: `${t.tool} 1.0` };
  tools['openssl'] = { found: true, version: 'OpenSSL 3.0' };
  tools['docker'] = { found: true, version: 'Docker 28' };
  return {
    node: { version: '24.21.0' },
    uid: 0,
    config: { ok: true, file: '/etc/appliance/config.toml', exists: true, root: '' },
    tools,
    compose: { plugin: null, standalone: '1.29.2' },
    docker: { socket: '/var/run/docker.sock', reachable: true, version: '28.2.2' },
    socketGroup: {
      group: 'appliance',
      gid: 995,
      members: ['alice'],
      socket: '/run/appliance/appliance.sock',
    },
    tls: { use: false, reason: 'the TCP listener is off (socket only)' },
    stateDir: { path: '/var/lib/appliance', measured: '/var/lib/appliance', freeBytes: 50 * 1024 ** 3 },
  };
}

const pair = (over: Partial<TlsPairFact> = {}): TlsPairFact => ({
  certFile: '/etc/ssl/nas.pem',
  keyFile: '/etc/ssl/nas.key',
  cert: {
    state: 'ok',
    subject: 'CN=nas',
    notBefore: '2026-01-01T00:00:00.000Z',
    notAfter: '2027-06-01T00:00:00.000Z',
  },
  key: { state: 'ok' },
  keyMode: 0o600,
  keyMatches: true,
  ...over,
});

const verdict = (facts: Facts, id: string) => {
  const v = evaluate(facts, { now }).find((x) => x.id === id);
  if (!v) throw new Error(`no check ${id}`);
  return v;
};

describe('evaluate', () => {
  it('passes a healthy host with exit 0 and no fix lines', () => {
    const verdicts = evaluate(healthy(), { now });
    expect(verdicts.filter((v) => v.status !== 'ok' && v.status !== 'skip')).toEqual([]);
    expect(exitCodeOf(verdicts)).toBe(0);
    expect(textReport(verdicts, { configFile: '/etc/appliance/config.toml', root: '' })).toContain(
      'Every check passed.',
    );
  });

  it('fails a missing required tool and names its Debian package', () => {
    const facts = healthy();
    facts.tools['mkfs.xfs'] = { found: false };
    const v = verdict(facts, 'mkfs.xfs');
    expect(v).toMatchObject({
      status: 'fail',
      required: true,
      package: 'xfsprogs',
      fix: 'apt-get install xfsprogs',
    });
    expect(exitCodeOf(evaluate(facts, { now }))).toBe(1);
  });

  it('only warns for a missing optional tool (exit 0)', () => {
    const facts = healthy();
    facts.tools['mkfs.exfat'] = { found: false };
    facts.tools['testparm'] = { found: false };
    expect(verdict(facts, 'mkfs.exfat')).toMatchObject({ status: 'warn', package: 'exfatprogs' });
    expect(verdict(facts, 'testparm')).toMatchObject({ status: 'warn', package: 'samba-common-bin' });
    expect(exitCodeOf(evaluate(facts, { now }))).toBe(0);
  });

  it('names a package for every tool it checks', () => {
    const facts = healthy();
    for (const t of TOOL_CHECKS) facts.tools[t.tool] = { found: false };
    for (const t of TOOL_CHECKS) expect(verdict(facts, t.tool).package, t.tool).toMatch(/^[a-z0-9.-]+$/);
  });

  it('treats Docker and Compose as optional (apps only) and says how to fix each', () => {
    const facts = healthy();
    facts.docker = { socket: '/var/run/docker.sock', reachable: false, error: 'no Engine socket' };
    facts.compose = { plugin: null, standalone: null };
    expect(verdict(facts, 'docker')).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('systemctl'),
    });
    expect(verdict(facts, 'compose')).toMatchObject({ status: 'warn', package: 'docker-compose' });
    facts.tools['docker'] = { found: false };
    expect(verdict(facts, 'docker')).toMatchObject({ package: 'docker.io' });
    expect(exitCodeOf(evaluate(facts, { now }))).toBe(0);
  });

  it('reports the compose flavour', () => {
    const facts = healthy();
    expect(verdict(facts, 'compose').detail).toContain('(v1)');
    facts.compose = { plugin: '2.29.0', standalone: null };
    expect(verdict(facts, 'compose').detail).toContain('v2 plugin');
  });

  it('warns without the socket group and says how to add it', () => {
    const facts = healthy();
    facts.socketGroup = {
      group: 'appliance',
      gid: null,
      members: [],
      socket: '/run/appliance/appliance.sock',
    };
    expect(verdict(facts, 'socket-group')).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('groupadd --system appliance'),
    });
  });

  it('fails an invalid configuration and skips what depends on it', () => {
    const facts = healthy();
    facts.config = { ok: false, file: '/x.toml', error: 'The configuration file /x.toml is not valid TOML' };
    facts.socketGroup = null;
    facts.tls = null;
    facts.stateDir = null;
    expect(verdict(facts, 'config').status).toBe('fail');
    expect(verdict(facts, 'tls').status).toBe('skip');
    expect(verdict(facts, 'state-dir').status).toBe('skip');
  });

  it('fails an old Node', () => {
    const facts = healthy();
    facts.node = { version: '20.19.0' };
    expect(verdict(facts, 'node').status).toBe('fail');
  });

  it('judges free space for the state directory', () => {
    const facts = healthy();
    facts.stateDir = { path: '/var/lib/appliance', measured: '/var/lib', freeBytes: STATE_DIR_MIN_BYTES - 1 };
    expect(verdict(facts, 'state-dir')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('not created yet'),
    });
    facts.stateDir.freeBytes = 1024 ** 3;
    expect(verdict(facts, 'state-dir').status).toBe('warn');
    facts.stateDir = { path: '/var/lib/appliance', measured: '/', freeBytes: null, error: 'EACCES' };
    expect(verdict(facts, 'state-dir').status).toBe('fail');
  });

  describe('TLS', () => {
    const tls = (t: Facts['tls']) => {
      const facts = healthy();
      facts.tls = t;
      return verdict(facts, 'tls');
    };
    it('is skipped without an HTTPS listener', () => {
      expect(tls({ use: false, reason: 'plain HTTP on 127.0.0.1:8008' }).status).toBe('skip');
    });
    it('accepts a current, matching pair', () => {
      expect(tls({ use: true, source: 'configured', pair: pair() })).toMatchObject({
        status: 'ok',
        detail: expect.stringContaining('CN=nas'),
      });
    });
    it('fails a missing file, a key of another certificate, an expired or not yet valid certificate', () => {
      const missing = pair({ cert: { state: 'missing', error: 'the file does not exist' } });
      expect(tls({ use: true, source: 'configured', pair: missing }).status).toBe('fail');
      const other = tls({ use: true, source: 'configured', pair: pair({ keyMatches: false }) });
      expect(other).toMatchObject({ status: 'fail', detail: expect.stringContaining('does not belong') });
      const expired = pair({
        cert: {
          state: 'ok',
          subject: 'CN=nas',
          notBefore: '2025-01-01T00:00:00Z',
          notAfter: '2026-01-01T00:00:00Z',
        },
      });
      expect(tls({ use: true, source: 'generated', pair: expired })).toMatchObject({
        status: 'fail',
        fix: expect.stringContaining('delete /etc/ssl/nas.pem'),
      });
      const future = pair({
        cert: {
          state: 'ok',
          subject: 'CN=nas',
          notBefore: '2027-01-01T00:00:00Z',
          notAfter: '2028-01-01T00:00:00Z',
        },
      });
      expect(tls({ use: true, source: 'configured', pair: future }).status).toBe('fail');
    });
    it('warns about a certificate close to expiry and a key others can read', () => {
      const soon = pair({
        cert: {
          state: 'ok',
          subject: 'CN=nas',
          notBefore: '2026-01-01T00:00:00Z',
          notAfter: '2026-12-05T00:00:00Z',
        },
      });
      expect(tls({ use: true, source: 'configured', pair: soon })).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining('expires in 9 days'),
      });
      expect(tls({ use: true, source: 'configured', pair: pair({ keyMode: 0o644 }) })).toMatchObject({
        status: 'warn',
        fix: 'chmod 600 /etc/ssl/nas.key',
      });
    });
    it('needs openssl when the pair is still to be generated', () => {
      const facts = healthy();
      facts.tls = { use: true, source: 'to-generate', dir: '/etc/appliance/tls' };
      expect(verdict(facts, 'tls').status).toBe('ok');
      facts.tools['openssl'] = { found: false };
      expect(verdict(facts, 'tls')).toMatchObject({ status: 'fail', package: 'openssl' });
    });
    it('warns when only one of tlsCert and tlsKey is set', () => {
      expect(
        tls({
          use: true,
          source: 'half-configured',
          set: 'tlsCert',
          fallback: { use: true, source: 'to-generate', dir: '/etc/appliance/tls' },
        }),
      ).toMatchObject({ status: 'warn', detail: expect.stringContaining('without server.tlsKey') });
    });
  });
});

describe('report', () => {
  it('prints a fix line under each problem and a closing sentence', () => {
    const facts = healthy();
    facts.tools['snapraid'] = { found: false };
    facts.tools['age'] = { found: false };
    const text = textReport(evaluate(facts, { now }), { configFile: '/etc/appliance/config.toml', root: '' });
    expect(text).toMatch(/FAIL {2}snapraid +not installed/);
    expect(text).toContain('fix: apt-get install snapraid');
    expect(text).toMatch(/warn {2}age +not installed .*\(optional\)/);
    expect(text).toContain('fix: apt-get install age');
    expect(text).toContain('1 required check failed, 1 warning: the service cannot do its job');
  });

  it('gives scripts the same verdicts as JSON', () => {
    const facts = healthy();
    facts.tools['mergerfs'] = { found: false };
    const json = jsonReport(evaluate(facts, { now }), { configFile: null, root: '/tmp/sbx' });
    expect(json).toMatchObject({ ok: false, failed: 1, warnings: 0, root: '/tmp/sbx' });
    expect(json.checks.find((c) => c.id === 'mergerfs')).toMatchObject({
      status: 'fail',
      package: 'mergerfs',
    });
  });

  it('formats sizes in IEC units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(256 * 1024 ** 2)).toBe('256.0 MiB');
    expect(formatBytes(77.4 * 1024 ** 3)).toBe('77.4 GiB');
  });
});
