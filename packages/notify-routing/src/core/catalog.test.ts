import { describe, expect, it } from 'vitest';
import {
  defaultSeverity,
  EVENT_CATALOG,
  EVENT_TYPES,
  isEventType,
  isSeverity,
  SEVERITIES,
} from './catalog.ts';

describe('event catalog', () => {
  it('holds the 29 event types of 04 §1 in catalog order', () => {
    expect(EVENT_TYPES).toHaveLength(29);
    expect(EVENT_TYPES[0]).toBe('smart_warning');
    expect(EVENT_TYPES[4]).toBe('sync_succeeded');
    expect(EVENT_TYPES[20]).toBe('login_failure_burst');
    expect(EVENT_TYPES[28]).toBe('catalog_check_failed');
    expect(new Set(EVENT_TYPES).size).toBe(29);
  });

  it('gives each event its compiled-in default severity', () => {
    expect(defaultSeverity('catalog_check_failed')).toBe('warning');
    expect(defaultSeverity('sync_succeeded')).toBe('info');
    expect(defaultSeverity('disk_offline')).toBe('critical');
    expect(defaultSeverity('sync_failed')).toBe('error');
    const counts = Object.fromEntries(
      SEVERITIES.map((s) => [s, EVENT_CATALOG.filter((e) => e.defaultSeverity === s).length]),
    );
    expect(counts).toEqual({ info: 3, warning: 11, error: 8, critical: 7 });
  });

  it('describes every event', () => {
    for (const entry of EVENT_CATALOG) expect(entry.description.length).toBeGreaterThan(10);
  });

  it('recognises catalog values only, case-sensitively; the test event is not routable', () => {
    expect(isEventType('disk_offline')).toBe(true);
    expect(isEventType('DISK_OFFLINE')).toBe(false);
    expect(isEventType('test')).toBe(false);
    expect(isEventType('__proto__')).toBe(false);
    expect(isSeverity('critical')).toBe(true);
    expect(isSeverity('fatal')).toBe(false);
  });
});
