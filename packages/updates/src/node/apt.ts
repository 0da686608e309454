/**
 * apt through the CommandRunner: `apt-get update` then a simulated upgrade (the check), the
 * upgrade itself non-interactively with apt's Status-Fd progress, and `dpkg --audit` on the very
 * database apt used (its `Dir::State::status`, read with `apt-config`).
 */
import path from 'node:path';
import { type CommandResult, missingTool } from '@appliance/common';
import {
  aptErrorLine,
  parseAudit,
  parseSimulatedUpgrade,
  parseStatusLine,
  type UpgradablePackage,
} from '../core/apt.ts';
import { DPKG_REMEDY } from '../core/failure.ts';
import type { AptDeps } from '../ports.ts';

const env = (deps: AptDeps): Record<string, string> => ({
  DEBIAN_FRONTEND: 'noninteractive',
  ...(deps.aptConfig ? { APT_CONFIG: deps.aptConfig } : {}),
});

/**
 * The command that runs `apt-get ARGS`: apt-get itself, or `systemd-run` starting it in a transient
 * unit (`transientUnit`), its output piped back and its exit status waited for.
 */
export function aptCommand(deps: AptDeps, args: readonly string[], unitName: string): [string, string[]] {
  if (!deps.transientUnit) return ['apt-get', [...args]];
  return [
    'systemd-run',
    [
      '--quiet',
      '--wait',
      '--pipe',
      '--collect',
      '--service-type=exec',
      `--unit=${unitName}`,
      ...Object.entries(env(deps)).map(([k, v]) => `--setenv=${k}=${v}`),
      '--',
      '/usr/bin/apt-get',
      ...args,
    ],
  ];
}

let runs = 0;

async function aptGet(deps: AptDeps, args: string[], options: Parameters<AptDeps['runner']['run']>[2] = {}) {
  if (!(await deps.runner.resolve('apt-get'))) throw missingTool('apt-get');
  const [command, argv] = aptCommand(deps, args, `appliance-apt-${process.pid}-${++runs}`);
  return deps.runner.run(command, argv, {
    timeoutMs: deps.timeoutMs ?? 600_000,
    ...options,
    env: env(deps),
  });
}

export class AptError extends Error {
  override name = 'AptError';
  readonly result: CommandResult;
  constructor(message: string, result: CommandResult) {
    super(message);
    this.result = result;
  }
}

export interface CheckResult {
  packages: UpgradablePackage[];
  security: UpgradablePackage[];
}

/**
 * `apt-get update` (unless `refresh` is false: right after an upgrade the lists are fresh), then
 * `apt-get -s upgrade`: what an upgrade would install now.
 */
export async function checkUpdates(deps: AptDeps, options: { refresh?: boolean } = {}): Promise<CheckResult> {
  if (options.refresh !== false) {
    const update = await aptGet(deps, ['-q', 'update']);
    if (update.exitCode !== 0 || /^(E|W): Failed to fetch/m.test(update.stderr))
      throw new AptError(`apt-get update failed: ${aptErrorLine(update.stdout, update.stderr)}`, update);
  }
  const sim = await aptGet(deps, ['-q', '-s', 'upgrade']);
  if (sim.exitCode !== 0)
    throw new AptError(`apt-get -s upgrade failed: ${aptErrorLine(sim.stdout, sim.stderr)}`, sim);
  const packages = parseSimulatedUpgrade(sim.stdout);
  return { packages, security: packages.filter((p) => p.security) };
}

export interface ApplyProgress {
  percent: number;
  package: string;
  message: string;
}

export type ApplyResult =
  | { ok: true; upgraded: UpgradablePackage[] }
  | {
      ok: false;
      errorLine: string;
      dpkgClean: boolean;
      brokenPackages: string[];
      audit: string;
      remedy: string | null;
    };

/**
 * The upgrade, non-interactive (`DEBIAN_FRONTEND=noninteractive`, old configuration files kept:
 * `--force-confold`), progress from `APT::Status-Fd`. A failure returns apt's own error line and
 * what `dpkg --audit` says afterwards.
 */
export async function applyUpgrade(
  deps: AptDeps,
  options: {
    onProgress?: (p: ApplyProgress) => void;
    onLine?: (line: string) => void;
    signal?: AbortSignal;
    onSpawn?: (pid: number) => void;
  } = {},
): Promise<ApplyResult> {
  const planned = parseSimulatedUpgrade((await aptGet(deps, ['-q', '-s', 'upgrade'])).stdout);
  const run = await aptGet(
    deps,
    [
      '-y',
      '-q',
      '-o',
      'APT::Status-Fd=1',
      '-o',
      'Dpkg::Options::=--force-confold',
      '-o',
      'Dpkg::Options::=--force-confdef',
      'upgrade',
    ],
    {
      timeoutMs: null,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
      onLine: (line) => {
        const s = parseStatusLine(line);
        if (s && (s.kind === 'install' || s.kind === 'download'))
          options.onProgress?.({
            percent: s.kind === 'download' ? 0 : Math.round(s.percent),
            package: s.package,
            message: s.message,
          });
        else if (line.trim() !== '') options.onLine?.(line);
      },
    },
  );
  if (run.exitCode === 0 && !run.cancelled) return { ok: true, upgraded: planned };
  const errorLine = run.cancelled ? 'the upgrade was cancelled' : aptErrorLine(run.stdout, run.stderr);
  const audit = await dpkgAudit(deps);
  return {
    ok: false,
    errorLine,
    dpkgClean: audit.clean,
    brokenPackages: audit.packages,
    audit: audit.report,
    remedy: audit.clean ? null : DPKG_REMEDY,
  };
}

/** `dpkg --audit` on apt's dpkg database (`Dir::State::status` of its configuration). */
export async function dpkgAudit(deps: AptDeps): Promise<ReturnType<typeof parseAudit>> {
  const admindir = await aptAdminDir(deps);
  const r = await deps.runner.run('dpkg', [`--admindir=${admindir}`, '--audit'], {
    timeoutMs: 60_000,
    env: env(deps),
  });
  return parseAudit(r.stdout);
}

/** The dpkg admin directory apt uses (the directory of `Dir::State::status`). */
export async function aptAdminDir(deps: AptDeps): Promise<string> {
  const r = await deps.runner.run('apt-config', ['shell', 'STATUS', 'Dir::State::status/f'], {
    timeoutMs: 30_000,
    env: env(deps),
  });
  const m = /^STATUS='([^']*)'/m.exec(r.stdout);
  return m?.[1] ? path.dirname(m[1]) : '/var/lib/dpkg';
}
