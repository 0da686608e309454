/**
 * What apt says, read without apt: the simulated upgrade's `Inst` lines, the Status-Fd progress
 * lines, apt's own error line, `dpkg --audit`'s report; and the `appliance_update_available`
 * condition over the upgradable set (a new set is a new key: raised once per set).
 */
import { createHash } from 'node:crypto';
import type { Condition, Observation } from '@appliance/watchers';

export interface UpgradablePackage {
  name: string;
  /** Installed version. */
  from: string;
  /** Candidate version. */
  to: string;
  /** Where the candidate comes from (`Debian-Security:12/stable-security`, `localhost`). */
  origin: string;
  architecture: string;
  /** From a security archive (`-security` suite or a Security origin). */
  security: boolean;
}

// Inst demo-tool [1.0] (2.0 localhost [all])
// Inst libc6 [2.36-9+deb12u3] (2.36-9+deb12u4 Debian:12.5/stable, Debian-Security:12/stable-security [amd64]) []
const INST = /^Inst (\S+) \[([^\]]+)\] \((\S+) (.*?) \[([^\]]+)\]\)/;

/** The upgrades `apt-get -s upgrade` would make (new installs and removals are not upgrades). */
export function parseSimulatedUpgrade(stdout: string): UpgradablePackage[] {
  const out: UpgradablePackage[] = [];
  for (const line of stdout.split('\n')) {
    const m = INST.exec(line);
    if (!m) continue;
    const origin = m[4]!;
    out.push({
      name: m[1]!,
      from: m[2]!,
      to: m[3]!,
      origin,
      architecture: m[5]!,
      security: /-security\b|Security:/i.test(origin),
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export const UPDATES_KEY_PREFIX = 'updates:available:';

/** A stable identity of an upgradable set (names and candidate versions). */
export function setIdentity(pkgs: readonly UpgradablePackage[]): string {
  const text = pkgs
    .map((p) => `${p.name}=${p.to}`)
    .sort()
    .join('\n');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

const describe = (p: UpgradablePackage) => `${p.name} ${p.from} → ${p.to}`;

/** `appliance_update_available` while the set is not empty; each new set is a new key. */
export function evaluateUpdates(pkgs: readonly UpgradablePackage[]): Observation {
  if (pkgs.length === 0) return { conditions: [] };
  const security = pkgs.filter((p) => p.security);
  const others = pkgs.filter((p) => !p.security);
  const count = `${pkgs.length} update${pkgs.length === 1 ? '' : 's'}`;
  const parts = [
    security.length > 0 ? `Security: ${security.map(describe).join(', ')}.` : '',
    others.length > 0
      ? `${security.length > 0 ? 'Other' : 'Packages'}: ${others.map(describe).join(', ')}.`
      : '',
  ].filter(Boolean);
  const condition: Condition = {
    key: `${UPDATES_KEY_PREFIX}${setIdentity(pkgs)}`,
    eventType: 'appliance_update_available',
    subject: 'the appliance’s Debian packages',
    value: `${pkgs.length} package${pkgs.length === 1 ? '' : 's'}${security.length > 0 ? `, ${security.length} security` : ''}`,
    title: `${count} available${security.length > 0 ? ` (${security.length} security)` : ''}`,
    message: `${count} for this appliance's Debian packages ${pkgs.length === 1 ? 'is' : 'are'} available. ${parts.join(' ')} Apply them with POST /updates/apply (or \`appliance updates apply\`): a configuration archive is written first.`,
  };
  return { conditions: [condition] };
}

/** One line of apt's `APT::Status-Fd` output, or null for any other line. */
export type StatusLine =
  | { kind: 'download' | 'install'; package: string; percent: number; message: string }
  | { kind: 'error'; package: string; percent: number; message: string }
  | { kind: 'conffile'; package: string; percent: number; message: string };

export function parseStatusLine(line: string): StatusLine | null {
  const m = /^(dlstatus|pmstatus|pmerror|pmconffile):([^:]*):([0-9.]+):(.*)$/.exec(line.trim());
  if (!m) return null;
  const kind =
    m[1] === 'dlstatus'
      ? 'download'
      : m[1] === 'pmstatus'
        ? 'install'
        : m[1] === 'pmerror'
          ? 'error'
          : 'conffile';
  return { kind, package: m[2]!, percent: Number.parseFloat(m[3]!), message: m[4]! };
}

/**
 * apt's own error line for a failed run: the first dpkg `pmerror` (it names the package and what
 * failed), else the first `E:` line, else the last non-empty line of stderr.
 */
export function aptErrorLine(stdout: string, stderr: string): string {
  for (const line of stdout.split('\n')) {
    const s = parseStatusLine(line);
    if (s?.kind === 'error') return `${s.package}: ${s.message}`;
  }
  const all = `${stderr}\n${stdout}`.split('\n').map((l) => l.trim());
  const e = all.find((l) => l.startsWith('E: '));
  if (e) return e.slice(3);
  return all.filter(Boolean).at(-1) ?? 'apt-get failed without a message';
}

/** `dpkg --audit`: clean, or the packages it lists (indented lines) and its whole report. */
export function parseAudit(stdout: string): { clean: boolean; packages: string[]; report: string } {
  const report = stdout.trim();
  const packages = report
    .split('\n')
    .filter((l) => /^ \S/.test(l))
    .map((l) => l.trim().split(/\s+/)[0]!);
  return { clean: report === '', packages, report };
}
