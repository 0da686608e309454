/**
 * Retention (issue 23): keep the newest snapshot of each of the last N days, N weeks and N months
 * that have one, per part, in the appliance's time zone — restic's `--keep-daily/-weekly/-monthly`
 * rule, decided here over `restic snapshots` so the run knows (and reports) what goes before it
 * asks restic to forget exactly those snapshots. A snapshot kept by any rule is kept; with at least
 * one rule ≥ 1 the newest snapshot of a part is always kept. Snapshots that are not ours (no part
 * tag) are never removed.
 */
import { partKey, partOfTags } from './parts.ts';
import type { Retention } from './plan.ts';

export interface SnapshotFact {
  id: string;
  /** RFC 3339. */
  time: string;
  tags: readonly string[] | null;
}

export interface RetentionDecision {
  keep: string[];
  remove: string[];
  /** Per part key: how many are kept and removed. */
  parts: Record<string, { kept: number; removed: number }>;
}

/** Local calendar fields of an instant in a time zone. */
function localDate(time: Date, timeZone: string): { y: number; m: number; d: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(time);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  return { y: get('year'), m: get('month'), d: get('day') };
}

/** ISO 8601 week-numbering year and week of a calendar date. */
export function isoWeek(y: number, m: number, d: number): { year: number; week: number } {
  const date = new Date(Date.UTC(y, m - 1, d));
  const day = (date.getUTCDay() + 6) % 7; // Monday 0
  date.setUTCDate(date.getUTCDate() - day + 3); // the Thursday of this week decides the year
  const year = date.getUTCFullYear();
  const firstThursday = new Date(Date.UTC(year, 0, 4));
  firstThursday.setUTCDate(firstThursday.getUTCDate() - ((firstThursday.getUTCDay() + 6) % 7) + 3);
  return { year, week: 1 + Math.round((date.getTime() - firstThursday.getTime()) / (7 * 86_400_000)) };
}

const buckets = {
  daily: (l: { y: number; m: number; d: number }) => l.y * 10_000 + l.m * 100 + l.d,
  weekly: (l: { y: number; m: number; d: number }) => {
    const w = isoWeek(l.y, l.m, l.d);
    return w.year * 100 + w.week;
  },
  monthly: (l: { y: number; m: number; d: number }) => l.y * 100 + l.m,
} as const;

export function decideRetention(
  snapshots: readonly SnapshotFact[],
  policy: Retention,
  timeZone: string,
): RetentionDecision {
  const groups = new Map<string, SnapshotFact[]>();
  const keep: string[] = [];
  for (const s of snapshots) {
    const part = partOfTags(s.tags);
    if (!part) {
      keep.push(s.id);
      continue;
    }
    const key = partKey(part);
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const remove: string[] = [];
  const parts: RetentionDecision['parts'] = {};
  for (const [key, list] of groups) {
    const newestFirst = [...list].sort(
      (a, b) => Date.parse(b.time) - Date.parse(a.time) || (a.id < b.id ? 1 : -1),
    );
    const rules = (['daily', 'weekly', 'monthly'] as const).map((r) => ({
      bucket: buckets[r],
      left: policy[r],
      last: null as number | null,
    }));
    let kept = 0;
    let removed = 0;
    for (const s of newestFirst) {
      const local = localDate(new Date(s.time), timeZone);
      let keepIt = false;
      for (const rule of rules) {
        if (rule.left <= 0) continue;
        const b = rule.bucket(local);
        if (b !== rule.last) {
          rule.last = b;
          rule.left--;
          keepIt = true;
        }
      }
      if (keepIt) {
        keep.push(s.id);
        kept++;
      } else {
        remove.push(s.id);
        removed++;
      }
    }
    parts[key] = { kept, removed };
  }
  return { keep, remove, parts };
}

/** Prune at most this often (forgotten snapshots' data stays until then). */
export const PRUNE_EVERY_MS = 7 * 86_400_000;

/**
 * Retention runs on the first run of each day in the appliance's time zone: its rules count days,
 * so a second run the same day would only forget that day's earlier snapshot, which the next day's
 * run forgets anyway (and a backup by hand before a risky change survives until then).
 */
export function retentionDue(lastRetentionAt: Date | null, now: Date, timeZone: string): boolean {
  if (lastRetentionAt === null) return true;
  const a = localDate(lastRetentionAt, timeZone);
  const b = localDate(now, timeZone);
  return a.y !== b.y || a.m !== b.m || a.d !== b.d;
}

/** `restic prune` (it reads every index and rewrites packs) after forgetting, at most once a week. */
export function pruneDue(input: {
  lastPruneAt: Date | null;
  forgottenSincePrune: number;
  now: Date;
}): boolean {
  if (input.forgottenSincePrune <= 0) return false;
  return input.lastPruneAt === null || input.now.getTime() - input.lastPruneAt.getTime() >= PRUNE_EVERY_MS;
}
