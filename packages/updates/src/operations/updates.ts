/**
 * The check and the apply as operations over ports: what the server's jobs run. The check records
 * what apt would upgrade and reports `appliance_update_available` (one key per set); the apply
 * writes a configuration archive first, upgrades with progress, and on failure holds
 * `appliance_update_failed` with apt's line and dpkg's state (cleared by the next successful apply).
 */
import { AppError, type Clock } from '@appliance/common';
import type { Condition, Observation } from '@appliance/watchers';
import { evaluateUpdates, UPDATES_KEY_PREFIX, type UpgradablePackage } from '../core/apt.ts';
import { UPDATE_FAILED_KEY, updateFailedCondition } from '../core/failure.ts';
import { type ApplyProgress, applyUpgrade, checkUpdates } from '../node/apt.ts';
import type { AptDeps } from '../ports.ts';

export interface UpdatePorts {
  apt: AptDeps;
  clock: Clock;
  /** Writes a configuration archive beside the others; resolves with its logical path. */
  writeArchive(): Promise<string>;
  /** Stores what a check found (or why it failed). */
  recordCheck(check: {
    checkedAt: string;
    packages: UpgradablePackage[];
    error: string | null;
  }): Promise<void>;
  /** Applies an observation of the conditions under `owns` (raise once, clear when gone). */
  report(owns: readonly string[], observation: Observation): Promise<void>;
  /** Holds a condition (raised once) / clears it. */
  hold(condition: Condition): Promise<void>;
  clear(key: string): Promise<void>;
}

/** The condition prefix of the available updates. */
export const UPDATES_OWNS = [UPDATES_KEY_PREFIX] as const;

export interface CheckOutcome {
  checkedAt: string;
  packages: UpgradablePackage[];
  security: UpgradablePackage[];
}

/** A check: `apt-get update` (unless `refresh: false`), a simulated upgrade, the record, the event. */
export async function runCheck(
  ports: UpdatePorts,
  options: { refresh?: boolean } = {},
): Promise<CheckOutcome> {
  const checkedAt = ports.clock.now().toISOString();
  try {
    const result = await checkUpdates(ports.apt, options);
    await ports.recordCheck({ checkedAt, packages: result.packages, error: null });
    await ports.report(UPDATES_OWNS, evaluateUpdates(result.packages));
    return { checkedAt, ...result };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await ports.recordCheck({ checkedAt, packages: [], error: message });
    // a failed check observes nothing: the held set stays as it was
    throw err instanceof AppError ? err : new AppError(502, 'update_check_failed', message);
  }
}

export interface ApplyHandle {
  phase(name: string): void;
  progress(p: ApplyProgress): void;
  output(line: string): void;
  signal?: AbortSignal;
  onSpawn?(pid: number): void;
}

export interface ApplyOutcome {
  archive: string;
  upgraded: UpgradablePackage[];
  pending: UpgradablePackage[];
}

/**
 * Archive → upgrade → a re-check without refreshing the lists. Throws `AppError` 500
 * `update_failed` with apt's own line (details: the archive, dpkg's state and what to run).
 */
export async function runApply(ports: UpdatePorts, job: ApplyHandle): Promise<ApplyOutcome> {
  job.phase('archive');
  const archive = await ports.writeArchive();
  job.output(`configuration archive written: ${archive}`);
  job.phase('upgrade');
  const result = await applyUpgrade(ports.apt, {
    onProgress: (p) => job.progress(p),
    onLine: (l) => job.output(l),
    ...(job.signal ? { signal: job.signal } : {}),
    ...(job.onSpawn ? { onSpawn: job.onSpawn } : {}),
  });
  if (!result.ok) {
    const condition = updateFailedCondition(result);
    await ports.hold(condition);
    throw new AppError(500, 'update_failed', `The upgrade failed: ${result.errorLine}`, {
      errorLine: result.errorLine,
      archive,
      dpkgClean: result.dpkgClean,
      brokenPackages: result.brokenPackages,
      audit: result.audit,
      remedy: result.remedy,
    });
  }
  await ports.clear(UPDATE_FAILED_KEY);
  job.phase('check');
  const after = await runCheck(ports, { refresh: false });
  return { archive, upgraded: result.upgraded, pending: after.packages };
}
