/**
 * The conditions that hold now (issue 22): raised once when they start, recorded when they clear,
 * never raised again while they hold, across restarts (the `watcher_conditions` table). Watchers
 * apply their decisions here; any feature reports a condition with `hold(key, event)` and
 * `clear(key)` and shares the same raise-once semantics (see FEATURES.md).
 */
import { type Condition, type Decision, groupOnsets, type HeldCondition } from '@appliance/watchers';
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/open.ts';
import { watcherConditions } from '../db/schema.ts';

/** What a feature reports: the event raised at the onset, and what `GET /health` shows. */
export interface ConditionReport {
  eventType: string;
  title: string;
  message: string;
  /** What it is about (default: the title). */
  subject?: string;
  /** The value that crossed its threshold, as shown. */
  value?: string | null;
}

/** A condition holding now, as `GET /health` shows it. */
export interface HeldConditionView extends HeldCondition {
  source: string;
  title: string;
}

/** Cleared conditions are kept this long as history. */
export const CLEARED_RETENTION_MS = 30 * 24 * 3600 * 1000;

type Row = typeof watcherConditions.$inferSelect;

const toHeld = (r: Row): HeldConditionView => ({
  key: r.key,
  eventType: r.eventType,
  source: r.source,
  subject: r.subject,
  value: r.value,
  title: r.title,
  message: r.message,
  since: r.since,
});

export class Conditions {
  private readonly ctx: AppContext;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  /** The conditions holding now (under these key prefixes when given), oldest first. */
  holding(prefixes?: readonly string[]): HeldConditionView[] {
    const rows = this.ctx.db
      .select()
      .from(watcherConditions)
      .where(isNull(watcherConditions.clearedAt))
      .orderBy(watcherConditions.since, watcherConditions.id)
      .all();
    const kept = prefixes ? rows.filter((r) => prefixes.some((p) => r.key.startsWith(p))) : rows;
    return kept.map(toHeld);
  }

  /**
   * Reports a condition that holds now. Raised (once) when it was not holding; otherwise its value
   * and message are updated silently. Resolves `true` when this call raised it.
   */
  async hold(key: string, report: ConditionReport, source = 'reported'): Promise<boolean> {
    const condition: Condition = {
      key,
      eventType: report.eventType as Condition['eventType'],
      subject: report.subject ?? report.title,
      value: report.value ?? null,
      title: report.title,
      message: report.message,
    };
    const held = this.holding().find((h) => h.key === key);
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
   * Applies a decision in one write job: onsets inserted (re-checked inside the job, so two
   * reporters of one key raise it once) and raised together with their alert, updates written,
   * clears recorded. The SSE push and the delivery worker's wake-up follow the commit.
   */
  async apply(source: string, decision: Decision): Promise<{ raised: number; cleared: number }> {
    if (decision.onsets.length === 0 && decision.clears.length === 0 && decision.updates.length === 0)
      return { raised: 0, cleared: 0 };
    const { ctx } = this;
    const withinJob = ctx.hooks.raiseWithin;
    const outcome = await ctx.writes.run((db) => {
      const now = ctx.clock.now().toISOString();
      const fresh = decision.onsets.filter((c) => openRow(db, c.key) === undefined);
      const announcements: Array<() => void> = [];
      const later: Array<{ eventType: string; title: string; message: string }> = [];
      for (const group of groupOnsets(fresh)) {
        const event = { eventType: group.eventType, title: group.title, message: group.message };
        let alertId: number | null = null;
        if (withinJob) {
          const raised = withinJob(db, event);
          alertId = raised.alertId;
          announcements.push(raised.announce);
        } else later.push(event);
        for (const key of group.keys) {
          const c = fresh.find((x) => x.key === key)!;
          db.insert(watcherConditions)
            .values({
              key: c.key,
              eventType: c.eventType,
              source,
              subject: c.subject,
              value: c.value,
              title: c.title,
              message: c.message,
              since: now,
              updatedAt: now,
              clearedAt: null,
              alertId,
            })
            .run();
        }
      }
      for (const c of decision.updates) {
        db.update(watcherConditions)
          .set({ value: c.value, message: c.message, title: c.title, subject: c.subject, updatedAt: now })
          .where(and(eq(watcherConditions.key, c.key), isNull(watcherConditions.clearedAt)))
          .run();
      }
      let cleared = 0;
      for (const h of decision.clears) {
        cleared += db
          .update(watcherConditions)
          .set({ clearedAt: now, updatedAt: now })
          .where(and(eq(watcherConditions.key, h.key), isNull(watcherConditions.clearedAt)))
          .run().changes;
      }
      if (cleared > 0) {
        const cutoff = new Date(ctx.clock.now().getTime() - CLEARED_RETENTION_MS).toISOString();
        db.delete(watcherConditions).where(lt(watcherConditions.clearedAt, cutoff)).run();
      }
      return { raised: fresh.length, cleared, announcements, later };
    });
    for (const announce of outcome.announcements) announce();
    for (const event of outcome.later)
      await ctx.hooks
        .raise?.(event)
        .catch((err: unknown) =>
          ctx.logger.error('raising a condition failed', { eventType: event.eventType, error: String(err) }),
        );
    return { raised: outcome.raised, cleared: outcome.cleared };
  }
}

function openRow(db: Db, key: string): Row | undefined {
  return db
    .select()
    .from(watcherConditions)
    .where(and(eq(watcherConditions.key, key), isNull(watcherConditions.clearedAt)))
    .get();
}
