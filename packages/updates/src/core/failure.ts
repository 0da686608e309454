/** `appliance_update_failed`: held from a failed apply until an apply succeeds. */
import type { Condition } from '@appliance/watchers';

export const UPDATE_FAILED_KEY = 'updates:failed';

export interface ApplyFailure {
  /** apt's own error line. */
  errorLine: string;
  /** `dpkg --audit` was clean after the failure. */
  dpkgClean: boolean;
  /** Packages dpkg left unconfigured or half installed. */
  brokenPackages: string[];
  /** What to run to finish (when dpkg is not clean). */
  remedy: string | null;
}

/** What to run when dpkg is left inconsistent. */
export const DPKG_REMEDY = 'dpkg --configure -a && apt-get -f install';

export function updateFailedCondition(f: ApplyFailure): Condition {
  const state = f.dpkgClean
    ? 'dpkg is consistent (dpkg --audit is clean): nothing was left half installed.'
    : `dpkg is left inconsistent (${f.brokenPackages.join(', ') || 'see dpkg --audit'}): run \`${f.remedy ?? DPKG_REMEDY}\` as root once the cause is fixed.`;
  return {
    key: UPDATE_FAILED_KEY,
    eventType: 'appliance_update_failed',
    subject: 'the appliance’s Debian packages',
    value: f.errorLine,
    title: 'An update of the appliance failed',
    message: `Applying the updates failed: ${f.errorLine}. ${state} The configuration archive written before the update can undo a bad one (POST /config/import).`,
  };
}
