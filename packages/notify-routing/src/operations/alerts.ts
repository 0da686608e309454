/** The in-app alerts (08 §7.5): every raised event, routed or not, newest first. */
import type { Severity } from '../core/catalog.ts';

export interface AlertListItem {
  id: number;
  eventType: string;
  severity: Severity;
  title: string;
  message: string;
  occurredAt: string;
}

/** The `notify_alerts` table as the host stores it. */
export interface AlertRows {
  /** Alerts with an id below `before` (all when null), newest first, at most `limit`. */
  page(limit: number, before: number | null): AlertListItem[];
}

/** A page of alerts and the id the next page starts below (null on the last page). */
export function listAlerts(rows: AlertRows, limit: number, before: number | null) {
  const alerts = rows.page(limit, before);
  return { alerts, nextBefore: alerts.length === limit ? alerts[alerts.length - 1]!.id : null };
}
