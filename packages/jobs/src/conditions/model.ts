/**
 * Raise-once conditions (09, issue 22): something that holds for a while (a full pool, a disk gone,
 * a stale backup) is raised once when it starts, recorded when it ends, and never raised again
 * while it holds. `decide` compares what holds now with what was held: which started (raise once),
 * which ended (record the clear), which changed value while holding (update silently).
 */

/** A condition that holds now, as a watcher or a feature observed it. */
export interface Condition {
  /**
   * Stable identity while the fact lasts: `<area>:<thing>[:<aspect>]` (`disk:/mnt/disk1`,
   * `space:pool`, `smart:WD-123:ata5`). The same key is never raised twice while it holds.
   */
  key: string;
  /** The catalog event raised at its onset. */
  eventType: string;
  /** What it is about, for people: `disk1 (/mnt/disk1, WDC WD140EDFZ, serial 9RK1XXXX)`. */
  subject: string;
  /** The value that crossed its threshold, as shown (`92 %`, `1975 sectors`), or null. */
  value: string | null;
  /** One line: what happened to what. */
  title: string;
  /** Sentences a person can act on: which thing, which value crossed which threshold, what to do. */
  message: string;
}

/** A condition as stored while it holds. */
export interface HeldCondition {
  key: string;
  eventType: string;
  subject: string;
  value: string | null;
  message: string;
  /** RFC 3339 UTC: when it started. */
  since: string;
}

/** What one look at the world saw. */
export interface Observation {
  /** Every condition that holds now among the things this look could observe. */
  conditions: Condition[];
  /**
   * Key prefixes this look could not observe (a disk in standby, a registry that did not answer):
   * conditions held under them are kept as they are, neither cleared nor raised.
   */
  unobserved?: string[];
}

export interface Decision {
  /** Conditions that started: raise each once. */
  onsets: Condition[];
  /** Held conditions that no longer hold: record the clear. */
  clears: HeldCondition[];
  /** Held conditions still holding with another value or message: update, never raise. */
  updates: Condition[];
}

const startsWithAny = (key: string, prefixes: readonly string[]) => prefixes.some((p) => key.startsWith(p));

/**
 * The pure decision (09 "Watchers"): `owns` are the key prefixes the observer is responsible for;
 * only held conditions under them can be cleared by it. Duplicate keys in one observation: the
 * first wins.
 */
export function decide(
  observation: Observation,
  previous: readonly HeldCondition[],
  owns: readonly string[],
): Decision {
  const unobserved = observation.unobserved ?? [];
  const current = new Map<string, Condition>();
  for (const c of observation.conditions) {
    if (!startsWithAny(c.key, owns) || startsWithAny(c.key, unobserved)) continue;
    if (!current.has(c.key)) current.set(c.key, c);
  }
  const held = new Map<string, HeldCondition>();
  for (const p of previous) if (startsWithAny(p.key, owns)) held.set(p.key, p);

  const onsets: Condition[] = [];
  const updates: Condition[] = [];
  for (const c of current.values()) {
    const h = held.get(c.key);
    if (!h) onsets.push(c);
    else if (h.value !== c.value || h.message !== c.message) updates.push(c);
  }
  const clears = [...held.values()].filter((h) => !current.has(h.key) && !startsWithAny(h.key, unobserved));
  return { onsets, clears, updates };
}

/** One notification for the onsets of one cycle that share an event type and a subject. */
export interface OnsetGroup {
  eventType: string;
  title: string;
  message: string;
  keys: string[];
}

/**
 * Onsets of the same event type about the same thing in one cycle become one notification (a disk
 * whose reallocated and pending sectors both appear is one SMART warning, listing both).
 */
export function groupOnsets(onsets: readonly Condition[]): OnsetGroup[] {
  const groups = new Map<string, Condition[]>();
  for (const c of onsets) {
    const k = `${c.eventType}\u0000${c.subject}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  return [...groups.values()].map((list) => {
    const first = list[0]!;
    if (list.length === 1)
      return { eventType: first.eventType, title: first.title, message: first.message, keys: [first.key] };
    return {
      eventType: first.eventType,
      title: `${first.title} (and ${list.length - 1} more)`,
      message: list.map((c) => c.message).join('\n\n'),
      keys: list.map((c) => c.key),
    };
  });
}
