/**
 * Backup plans (issue 23): what (the configuration archive, the app data of chosen stacks, chosen
 * shares), where (a registered backup destination, by label), when (daily at a time, or weekly),
 * how long (keep N daily, weekly, monthly snapshots) and how often a restore drill proves it. Plain
 * data and the checks that need facts from the installation (which stacks, shares and destinations
 * exist), in the order the API answers them.
 */
import {
  type Refusal,
  refuse,
  TIME_OF_DAY,
  type ValidationIssue,
  WEEKDAYS,
  type Weekday,
} from '@appliance/common';

/** `^[a-z0-9][a-z0-9_-]{0,31}$`: one path segment of the repository folder on the disk. */
export const PLAN_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const PLAN_NAME_RULE =
  '1-32 characters: lowercase letters, digits, "-" and "_", starting with a letter or digit';

export type BackupSchedule =
  | { kind: 'daily'; time: string }
  | { kind: 'weekly'; weekday: Weekday; time: string };

/** How many snapshots of each part to keep: the newest of each of the last N days, weeks, months. */
export interface Retention {
  daily: number;
  weekly: number;
  monthly: number;
}

/** Restore drills: every `everyDays` days at `time` (default monthly). */
export interface DrillSettings {
  enabled: boolean;
  everyDays: number;
  time: string;
}

export interface StackChoice {
  name: string;
  /** Back up while the stack runs (no stop/start); default false: stopped for a consistent copy. */
  keepRunning: boolean;
}

/** What the administrator sets (POST/PUT /backups/plans). */
export interface PlanSpec {
  enabled: boolean;
  /** A registered external disk marked as a backup destination (07), by label. */
  destination: string;
  configuration: boolean;
  stacks: StackChoice[];
  shares: string[];
  schedule: BackupSchedule;
  retention: Retention;
  drill: DrillSettings;
}

export interface BackupPlan extends PlanSpec {
  name: string;
  createdAt: string;
  updatedAt: string;
}

export const DEFAULT_RETENTION: Retention = { daily: 7, weekly: 4, monthly: 6 };
export const DEFAULT_DRILL: DrillSettings = { enabled: true, everyDays: 30, time: '05:00' };

export const PLAN_LIMITS = {
  retention: { min: 0, max: 1000 },
  everyDays: { min: 1, max: 365 },
  stacks: 64,
  shares: 64,
} as const;

export { TIME_OF_DAY, WEEKDAYS, type Weekday };

/** What a plan may name on this installation. */
export interface PlanFacts {
  stacks: readonly string[];
  shares: readonly string[];
  destinations: readonly { label: string; backupDestination: boolean }[];
  /** A backup passphrase is configured (settings): the repository password then travels in secrets.age. */
  passphraseSet: boolean;
}

/** A plan the schema accepted but whose fields do not fit together (`bad_request`, with its issues). */
const badPlan = (issue: ValidationIssue): Refusal =>
  refuse('bad_request', `The request is not valid: ${issue.path || '(body)'}: ${issue.message}`, {
    issues: [issue],
  });

/**
 * The refusal for a plan that the schema accepted, or null: shape rules first (`bad_request`), then
 * the references (`external_disk_not_found`, `stack_not_found`, `share_not_found`), then the
 * destination's role and the passphrase (`not_a_backup_destination`, `backup_passphrase_required`).
 */
export function checkPlan(spec: PlanSpec, facts: PlanFacts): Refusal | null {
  if (!spec.configuration && spec.stacks.length === 0 && spec.shares.length === 0)
    return badPlan({
      path: '',
      message: 'choose something to back up: configuration, stacks or shares (at least one)',
    });
  const dupStack = firstDuplicate(spec.stacks.map((s) => s.name));
  if (dupStack !== null) return badPlan({ path: 'stacks', message: `the stack ${dupStack} is listed twice` });
  const dupShare = firstDuplicate(spec.shares);
  if (dupShare !== null) return badPlan({ path: 'shares', message: `the share ${dupShare} is listed twice` });
  const r = spec.retention;
  if (r.daily + r.weekly + r.monthly === 0)
    return badPlan({
      path: 'retention',
      message: 'keep at least one snapshot: set daily, weekly or monthly to 1 or more',
    });
  const destination = facts.destinations.find((d) => d.label === spec.destination);
  if (!destination)
    return refuse(
      'external_disk_not_found',
      `No external disk is registered as "${spec.destination}": register the backup disk first (as a backup destination), then name its label.`,
      { label: spec.destination, registered: false },
    );
  for (const s of spec.stacks) {
    if (!facts.stacks.includes(s.name))
      return refuse(
        'stack_not_found',
        `There is no stack named "${s.name}": list the stacks and name one of them.`,
        { stack: s.name },
      );
  }
  for (const name of spec.shares) {
    if (!facts.shares.includes(name))
      return refuse(
        'share_not_found',
        `There is no share named "${name}": list the shares and name one of them.`,
        { share: name },
      );
  }
  if (!destination.backupDestination)
    return refuse(
      'not_a_backup_destination',
      `The external disk "${spec.destination}" is not marked as a backup destination: choose a disk registered as a backup destination.`,
      { label: spec.destination },
    );
  if (!facts.passphraseSet)
    return refuse(
      'backup_passphrase_required',
      'Set a backup passphrase in the settings first: the repository password of a plan is kept in the configuration archive under it, and without it a new box could never read these backups.',
    );
  return null;
}

function firstDuplicate(names: readonly string[]): string | null {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) return n;
    seen.add(n);
  }
  return null;
}

/** The repository of a plan, under the destination's mountpoint (logical): one per plan. */
export const REPOSITORY_DIR = 'appliance-backups';
export const repositoryPath = (mountpoint: string, plan: string): string =>
  `${mountpoint}/${REPOSITORY_DIR}/${plan}/repository`;
/** The latest configuration archive of a plan, beside its repository (readable without the password). */
export const configCopyPath = (mountpoint: string, plan: string): string =>
  `${mountpoint}/${REPOSITORY_DIR}/${plan}/appliance-config-latest.tar.zst`;
/** The drill's scratch directory on the destination (removed after each drill). */
export const drillScratchPath = (mountpoint: string, jobId: string): string =>
  `${mountpoint}/${REPOSITORY_DIR}/.drill-${jobId}`;

/** The exclusion group of every job that uses a destination (runs, drills, restores, format, mount). */
export const destinationGroup = (label: string): string => `backup:${label.toLowerCase()}`;
