import type { ChangeKind, LogRecord } from './log.ts';

/** What `snapraid diff` found since the last sync (01 of issue 27's status). */
export interface DiffSummary {
  equal: number;
  added: number;
  removed: number;
  updated: number;
  moved: number;
  copied: number;
  restored: number;
  /** Paths per change kind (`disk/path`), at most `DIFF_PATH_LIMIT` each; counts above stay exact. */
  paths: { added: string[]; removed: string[]; updated: string[]; moved: string[]; copied: string[] };
  /** Whether a sync has anything to do. */
  changes: boolean;
}

/** Paths kept per change kind (a diff of 2 million removals is counted, not listed). */
export const DIFF_PATH_LIMIT = 10_000;

const KIND_KEY: Partial<Record<ChangeKind, keyof DiffSummary['paths']>> = {
  add: 'added',
  remove: 'removed',
  update: 'updated',
  move: 'moved',
  copy: 'copied',
};

const SUMMARY_KEYS = ['equal', 'added', 'removed', 'updated', 'moved', 'copied', 'restored'] as const;

/** Accumulates a diff from log records (`scan:` lines, then the `summary:` counts). */
export class DiffCollector {
  private readonly counts: Record<(typeof SUMMARY_KEYS)[number], number> = {
    equal: 0,
    added: 0,
    removed: 0,
    updated: 0,
    moved: 0,
    copied: 0,
    restored: 0,
  };
  private readonly paths: DiffSummary['paths'] = {
    added: [],
    removed: [],
    updated: [],
    moved: [],
    copied: [],
  };
  private sawSummary = false;
  private readonly limit: number;

  constructor(limit = DIFF_PATH_LIMIT) {
    this.limit = limit;
  }

  add(record: LogRecord): void {
    if (record.kind === 'scan') {
      const key = KIND_KEY[record.change];
      if (!key) return;
      if (!this.sawSummary) this.counts[key] += 1;
      const list = this.paths[key];
      if (list.length < this.limit) list.push(`${record.disk}/${record.path}`);
    } else if (record.kind === 'summary' && (SUMMARY_KEYS as readonly string[]).includes(record.key)) {
      // the summary counts win over the lines counted so far (they include what was not listed)
      if (!this.sawSummary) for (const k of SUMMARY_KEYS) this.counts[k] = 0;
      this.sawSummary = true;
      this.counts[record.key as (typeof SUMMARY_KEYS)[number]] = Number(record.values[0]) || 0;
    }
  }

  result(): DiffSummary {
    const c = this.counts;
    return {
      ...c,
      paths: {
        added: [...this.paths.added],
        removed: [...this.paths.removed],
        updated: [...this.paths.updated],
        moved: [...this.paths.moved],
        copied: [...this.paths.copied],
      },
      changes: c.added + c.removed + c.updated + c.moved + c.copied + c.restored > 0,
    };
  }
}

export type DiffCounts = Pick<DiffSummary, 'added' | 'removed' | 'updated' | 'moved' | 'copied' | 'restored'>;

/** The change counts of a diff (what a job result and the status report). */
export const diffCounts = (d: DiffCounts): DiffCounts => ({
  added: d.added,
  removed: d.removed,
  updated: d.updated,
  moved: d.moved,
  copied: d.copied,
  restored: d.restored,
});

/** A diff with these counts and no paths (`equal` files unchanged). */
export function diffOf(counts: Partial<DiffCounts> & { equal?: number } = {}): DiffSummary {
  const c = { equal: 0, added: 0, removed: 0, updated: 0, moved: 0, copied: 0, restored: 0, ...counts };
  return {
    ...c,
    paths: { added: [], removed: [], updated: [], moved: [], copied: [] },
    changes: c.added + c.removed + c.updated + c.moved + c.copied + c.restored > 0,
  };
}

/** The diff of a list of records (pure convenience over `DiffCollector`). */
export function summarizeDiff(records: Iterable<LogRecord>, limit = DIFF_PATH_LIMIT): DiffSummary {
  const c = new DiffCollector(limit);
  for (const r of records) c.add(r);
  return c.result();
}
