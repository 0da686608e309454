/**
 * The conditions that hold now (issue 22): raised once when they start, recorded when they clear,
 * never raised again while they hold, across restarts when the store is persistent. Watchers apply
 * their decisions here; any feature reports a condition with `hold(key, report)` and `clear(key)`
 * and shares the same raise-once semantics.
 */
import {
  type Condition,
  type Decision,
  decide,
  groupOnsets,
  type HeldCondition,
  type Observation,
} from './model.ts';
import type { ConditionPorts, StoredCondition } from './ports.ts';

/** What a feature reports: the event raised at the onset, and what a health view shows. */
export interface ConditionReport {
  eventType: string;
  title: string;
  message: string;
  /** What it is about (default: the title). */
  subject?: string;
  /** The value that crossed its threshold, as shown. */
  value?: string | null;
}

/** A condition holding now, as a health view shows it. */
export interface HeldConditionView extends HeldCondition {
  source: string;
  title: string;
}

/** Cleared conditions are kept this long as history. */
export const CLEARED_RETENTION_MS = 30 * 24 * 3600 * 1000;

const view = (r: StoredCondition): HeldConditionView => ({
  key: r.key,
  eventType: r.eventType,
  source: r.source,
  subject: r.subject,
  value: r.value,
  title: r.title,
  message: r.message,
  since: r.since,
});

export class Conditions<Tx = unknown> {
  private readonly ports: ConditionPorts<Tx>;

  constructor(ports: ConditionPorts<Tx>) {
    this.ports = ports;
  }

  /** The conditions holding now (under these key prefixes when given), oldest first. */
  holding(prefixes?: readonly string[]): HeldConditionView[] {
    const rows = this.ports.store.holding();
    const kept = prefixes ? rows.filter((r) => prefixes.some((p) => r.key.startsWith(p))) : rows;
    return kept.map(view);
  }

  /**
   * Reports a condition that holds now. Raised (once) when it was not holding; otherwise its value
   * and message are updated silently. Resolves `true` when this call raised it.
   */
  async hold(key: string, report: ConditionReport, source = 'reported'): Promise<boolean> {
    const condition: Condition = {
      key,
      eventType: report.eventType,
      subject: report.subject ?? report.title,
      value: report.value ?? null,
      title: report.title,
      message: report.message,
    };
    const held = this.holding().some((h) => h.key === key);
    const decision: Decision = held
      ? { onsets: [], clears: [], updates: [condition] }
      : { onsets: [condition], clears: [], updates: [] };
    return (await this.apply(source, decision)).raised > 0;
  }

  /** Reports that a condition no longer holds. Resolves `true` when one was holding. */
  async clear(key: string): Promise<boolean> {
    const held = this.holding().find((h) => h.key === key);
    if (!held) return false;
    return (await this.apply('reported', { onsets: [], clears: [held], updates: [] })).cleared > 0;
  }

  /**
   * One report of a reporter that owns the conditions under `owns` (key prefixes): what it
   * observes now is compared with what it holds (`decide`), and the decision applied.
   */
  observe(source: string, observation: Observation, owns: readonly string[]) {
    return this.apply(source, decide(observation, this.holding(owns), owns));
  }

  /**
   * Applies a decision in one write: onsets recorded (re-checked inside the write, so two
   * reporters of one key raise it once) and raised together, one event per group of onsets
   * (`groupOnsets`); updates written; clears recorded (and conditions cleared longer than
   * `CLEARED_RETENTION_MS` ago forgotten). What the sink does after the commit follows it.
   */
  async apply(source: string, decision: Decision): Promise<{ raised: number; cleared: number }> {
    if (decision.onsets.length === 0 && decision.clears.length === 0 && decision.updates.length === 0)
      return { raised: 0, cleared: 0 };
    const { store, events, clock, logger } = this.ports;
    const outcome = await store.write((w) => {
      const now = clock.now();
      const at = now.toISOString();
      const fresh = decision.onsets.filter((c) => !w.holds(c.key));
      const after: Array<{ eventType: string; run: () => void | Promise<void> }> = [];
      for (const group of groupOnsets(fresh)) {
        const event = { eventType: group.eventType, title: group.title, message: group.message };
        const raised = events.raise(w.tx, event);
        if (raised.afterCommit) after.push({ eventType: event.eventType, run: raised.afterCommit });
        for (const key of group.keys) {
          const c = fresh.find((x) => x.key === key)!;
          w.insert({ ...c, source, since: at }, at, raised.alertId);
        }
      }
      for (const c of decision.updates) w.update(c, at);
      let cleared = 0;
      for (const h of decision.clears) if (w.clear(h.key, at)) cleared += 1;
      if (cleared > 0) w.pruneCleared(new Date(now.getTime() - CLEARED_RETENTION_MS).toISOString());
      return { raised: fresh.length, cleared, after };
    });
    for (const a of outcome.after) {
      try {
        await a.run();
      } catch (err) {
        logger.error('raising a condition failed', { eventType: a.eventType, error: String(err) });
      }
    }
    return { raised: outcome.raised, cleared: outcome.cleared };
  }
}
