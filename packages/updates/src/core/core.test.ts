import { describe, expect, it } from 'vitest';
import { aptErrorLine, evaluateUpdates, parseAudit, parseSimulatedUpgrade, parseStatusLine } from './apt.ts';
import { compareDebianVersions } from './debian-version.ts';
import { updateFailedCondition } from './failure.ts';
import { evaluateReboot, newestKernel, REBOOT_KEY } from './reboot.ts';

describe('Debian version order', () => {
  it.each([
    ['6.1.0-18-amd64', '6.1.0-9-amd64', 1],
    ['1.0~rc1', '1.0', -1],
    ['1:0.9', '2.0', 1],
    ['2.36-9+deb12u4', '2.36-9+deb12u3', 1],
    ['1.0', '1.0', 0],
    ['1.0a', '1.0', 1],
  ])('%s against %s', (a, b, sign) => {
    expect(Math.sign(compareDebianVersions(a, b))).toBe(sign);
  });
});

describe('reboot required', () => {
  const none = {
    flagged: false,
    packages: [],
    runningKernel: '6.1.0-18-amd64',
    installedKernels: ['6.1.0-18-amd64'],
  };
  it('nothing holds without the flag and with the newest kernel running', () => {
    expect(evaluateReboot(none).conditions).toEqual([]);
  });
  it('the flag names the packages of reboot-required.pkgs', () => {
    const [c] = evaluateReboot({ ...none, flagged: true, packages: ['libc6', 'dbus', 'libc6'] }).conditions;
    expect(c?.key).toBe(REBOOT_KEY);
    expect(c?.eventType).toBe('reboot_required');
    expect(c?.value).toBe('libc6, dbus');
    expect(c?.message).toContain('libc6, dbus');
  });
  it('a running kernel older than the newest installed holds it, naming the new kernel', () => {
    expect(newestKernel(['6.1.0-9-amd64', '6.1.0-18-amd64', '6.1.0-17-amd64'])).toBe('6.1.0-18-amd64');
    const [c] = evaluateReboot({
      ...none,
      runningKernel: '6.1.0-17-amd64',
      installedKernels: ['6.1.0-17-amd64', '6.1.0-18-amd64'],
    }).conditions;
    expect(c?.value).toBe('linux-image-6.1.0-18-amd64');
    expect(c?.message).toContain('6.1.0-17-amd64 is older than the newest installed one, 6.1.0-18-amd64');
  });
});

describe('apt output', () => {
  const sim = [
    'Reading package lists...',
    'Inst demo-tool [1.0] (2.0 localhost [all])',
    'Inst libc6 [2.36-9+deb12u3] (2.36-9+deb12u4 Debian:12.5/stable, Debian-Security:12/stable-security [amd64]) []',
    'Conf demo-tool (2.0 localhost [all])',
  ].join('\n');
  it('reads the upgrades of a simulated upgrade, security ones marked', () => {
    expect(parseSimulatedUpgrade(sim)).toEqual([
      {
        name: 'demo-tool',
        from: '1.0',
        to: '2.0',
        origin: 'localhost',
        architecture: 'all',
        security: false,
      },
      {
        name: 'libc6',
        from: '2.36-9+deb12u3',
        to: '2.36-9+deb12u4',
        origin: 'Debian:12.5/stable, Debian-Security:12/stable-security',
        architecture: 'amd64',
        security: true,
      },
    ]);
  });
  it('one key per upgradable set: the same set keeps it, a new version changes it', () => {
    const pkgs = parseSimulatedUpgrade(sim);
    const a = evaluateUpdates(pkgs).conditions[0]!;
    expect(evaluateUpdates([...pkgs].reverse()).conditions[0]!.key).toBe(a.key);
    expect(evaluateUpdates([{ ...pkgs[0]!, to: '3.0' }, pkgs[1]!]).conditions[0]!.key).not.toBe(a.key);
    expect(a.title).toBe('2 updates available (1 security)');
    expect(a.message).toContain('Security: libc6 2.36-9+deb12u3 → 2.36-9+deb12u4.');
    expect(evaluateUpdates([]).conditions).toEqual([]);
  });
  it('Status-Fd lines, apt’s error line, dpkg --audit', () => {
    expect(parseStatusLine('pmstatus:demo-tool:60.0000:Configuring demo-tool (amd64)')).toEqual({
      kind: 'install',
      package: 'demo-tool',
      percent: 60,
      message: 'Configuring demo-tool (amd64)',
    });
    expect(parseStatusLine('Setting up demo-tool (2.0) ...')).toBeNull();
    expect(
      aptErrorLine(
        'pmerror:demo-tool:60.0000:installed demo-tool package post-installation script subprocess returned error exit status 1\n',
        'E: Sub-process /usr/bin/dpkg returned an error code (1)\n',
      ),
    ).toBe(
      'demo-tool: installed demo-tool package post-installation script subprocess returned error exit status 1',
    );
    expect(aptErrorLine('', 'E: Unable to locate package x\n')).toBe('Unable to locate package x');
    const audit = parseAudit(
      'The following packages are only half configured, probably due to problems\nconfiguring them the first time.\n demo-tool            demo\n\n',
    );
    expect(audit).toMatchObject({ clean: false, packages: ['demo-tool'] });
    expect(parseAudit('')).toMatchObject({ clean: true, packages: [] });
  });
  it('the failure condition says whether dpkg is consistent and what to run', () => {
    const c = updateFailedCondition({
      errorLine: 'x: boom',
      dpkgClean: false,
      brokenPackages: ['x'],
      remedy: 'dpkg --configure -a',
    });
    expect(c.message).toContain('run `dpkg --configure -a`');
    expect(
      updateFailedCondition({ errorLine: 'x', dpkgClean: true, brokenPackages: [], remedy: null }).message,
    ).toContain('dpkg --audit is clean');
  });
});

describe('where apt runs', () => {
  it('as a child, or in a transient systemd unit with its environment', async () => {
    const { aptCommand } = await import('../node/apt.ts');
    const runner = { run: async () => ({}) as never, resolve: async () => null };
    expect(aptCommand({ runner, aptConfig: null }, ['-q', 'update'], 'u')).toEqual([
      'apt-get',
      ['-q', 'update'],
    ]);
    expect(
      aptCommand(
        { runner, aptConfig: '/etc/x.conf', transientUnit: true },
        ['-y', 'upgrade'],
        'appliance-apt-1',
      ),
    ).toEqual([
      'systemd-run',
      [
        '--quiet',
        '--wait',
        '--pipe',
        '--collect',
        '--service-type=exec',
        '--unit=appliance-apt-1',
        '--setenv=DEBIAN_FRONTEND=noninteractive',
        '--setenv=APT_CONFIG=/etc/x.conf',
        '--',
        '/usr/bin/apt-get',
        '-y',
        'upgrade',
      ],
    ]);
  });
});
