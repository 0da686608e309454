/**
 * The watcher loops (09 "Watchers", issue 22): a loop per watcher with its own interval; each
 * cycle reads facts through its probes, hands them with the conditions it holds to the pure
 * decision (`decide`), and applies the result through the conditions port (`Conditions` of
 * `@appliance/jobs`: onsets raised once, clears recorded). A failing watcher says so in the log
 * once (and again when it recovers), and in its status. Cycles are asynchronous and never
 * overlap; nothing here blocks the caller.
 *
 * Timers are injected: a service uses `realTimers`; tests use `manualTimers` and drive cycles with
 * `runOnce(name)`, or the manual clock and timers of `@appliance/watchers/testing`.
 */
import { decide, type HeldCondition, type Note, type Observation } from './core/model.ts';
import type { RunnerPorts, WatcherTimers } from './ports.ts';

export type { WatcherTimers } from './ports.ts';

export interface WatcherDefinition {
  name: string;
  /** The catalog events it raises (GET /health, GET /notifications/event-types). */
  events: readonly string[];
  /** Key prefixes of the conditions it owns: only those can be cleared by its cycles. */
  owns: readonly string[];
  /** Seconds between two cycles, read each time a cycle is scheduled (the settings may change it). */
  intervalSeconds(): number;
  /**
   * Whether it runs on this installation now (the UPS watcher: only with a UPS in the settings).
   * A disabled watcher's cycle observes nothing, so the conditions it held clear.
   */
  enabled?(): boolean;
  /** Why it is not running, for GET /health. */
  disabledReason?: string;
  /** One cycle: read the facts, say what holds now. `previous` are the conditions it holds. */
  observe(previous: readonly HeldCondition[]): Promise<Observation>;
}

/** Node's timers, unref'd so a pending cycle never keeps the process alive. */
export const realTimers: WatcherTimers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Timers that never fire: cycles run only through `runOnce` (tests). */
export const manualTimers: WatcherTimers = { setTimeout: () => null, clearTimeout: () => undefined };

export interface WatcherStatus {
  name: string;
  events: string[];
  intervalSeconds: number;
  enabled: boolean;
  /** Why it does not run (when `enabled` is false). */
  disabledReason: string | null;
  running: boolean;
  runs: number;
  lastRunAt: string | null;
  lastDurationMs: number | null;
  /** The last cycle's failure, and since when it has been failing. */
  error: { message: string; since: string } | null;
  notes: Note[];
}

interface Slot {
  def: WatcherDefinition;
  timer: unknown;
  current: Promise<void> | null;
  status: WatcherStatus;
}

/** First cycles after start: staggered, so startup is not a burst of probes (issue 26). */
export const FIRST_RUN_DELAY_MS = 1000;
export const FIRST_RUN_STAGGER_MS = 500;

export class WatcherRunner {
  private readonly slots = new Map<string, Slot>();
  /** Key prefixes whose conditions are not observed now (`pause`), with how often each is paused. */
  private readonly paused = new Map<string, number>();
  private readonly conditions: RunnerPorts['conditions'];
  private readonly clock: RunnerPorts['clock'];
  private readonly logger: RunnerPorts['logger'];
  private timers: WatcherTimers;
  private started = false;
  private stopped = false;

  constructor(ports: RunnerPorts) {
    this.conditions = ports.conditions;
    this.clock = ports.clock;
    this.logger = ports.logger;
    this.timers = ports.timers;
  }

  /** Adds a watcher (features do this in `start`); scheduled at once when the runner runs already. */
  register(def: WatcherDefinition): void {
    if (this.slots.has(def.name)) throw new Error(`a watcher named ${def.name} is registered already`);
    const slot: Slot = {
      def,
      timer: null,
      current: null,
      status: {
        name: def.name,
        events: [...def.events],
        intervalSeconds: def.intervalSeconds(),
        enabled: def.enabled?.() ?? true,
        disabledReason: null,
        running: false,
        runs: 0,
        lastRunAt: null,
        lastDurationMs: null,
        error: null,
        notes: [],
      },
    };
    this.slots.set(def.name, slot);
    if (this.started) this.schedule(slot, FIRST_RUN_DELAY_MS);
  }

  names(): string[] {
    return [...this.slots.keys()];
  }

  /**
   * An operation that stops something on purpose (a backup stopping a stack) pauses the
   * observation of its conditions: while paused, the conditions under `prefixes` are neither
   * cleared nor raised (what held before the stop and holds after is the same condition, one
   * notification). Returns the release (idempotent).
   */
  pause(prefixes: readonly string[]): () => void {
    for (const p of prefixes) this.paused.set(p, (this.paused.get(p) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const p of prefixes) {
        const n = (this.paused.get(p) ?? 1) - 1;
        if (n <= 0) this.paused.delete(p);
        else this.paused.set(p, n);
      }
    };
  }

  /** Starts every loop (after all features registered theirs). */
  start(): void {
    if (this.started) return;
    this.started = true;
    let i = 0;
    for (const slot of this.slots.values())
      this.schedule(slot, FIRST_RUN_DELAY_MS + FIRST_RUN_STAGGER_MS * i++);
  }

  /** Replaces the timers (tests that switch to manual timers after start). */
  useTimers(timers: WatcherTimers): void {
    for (const slot of this.slots.values()) this.cancel(slot);
    this.timers = timers;
    if (this.started) for (const slot of this.slots.values()) this.schedule(slot, FIRST_RUN_DELAY_MS);
  }

  /** The settings changed: every loop waits its new interval from now. */
  reschedule(): void {
    if (!this.started) return;
    for (const slot of this.slots.values()) {
      if (slot.current) continue; // it schedules itself when done
      this.cancel(slot);
      this.schedule(slot, slot.def.intervalSeconds() * 1000);
    }
  }

  /**
   * Runs one cycle of a watcher now and resolves when it is applied (a cycle already running is
   * waited for first: cycles never overlap). Rejects only for an unknown name; a failing cycle is
   * recorded in the status.
   */
  async runOnce(name: string): Promise<WatcherStatus> {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`no watcher named ${name}`);
    while (slot.current) await slot.current;
    await this.cycle(slot, false);
    return this.snapshot(slot);
  }

  status(): WatcherStatus[] {
    return [...this.slots.values()].map((s) => this.snapshot(s));
  }

  /** Stops every loop and waits for running cycles. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const slot of this.slots.values()) this.cancel(slot);
    await Promise.all([...this.slots.values()].map((s) => s.current?.catch(() => undefined)));
  }

  /** Milliseconds on a monotonic clock (the clock's own when it has one). */
  private elapsed(): number {
    return this.clock.monotonicMs?.() ?? performance.now();
  }

  private snapshot(slot: Slot): WatcherStatus {
    const enabled = slot.def.enabled?.() ?? true;
    return {
      ...slot.status,
      intervalSeconds: slot.def.intervalSeconds(),
      enabled,
      disabledReason: enabled ? null : (slot.def.disabledReason ?? 'not configured'),
      running: slot.current !== null,
      notes: [...slot.status.notes],
    };
  }

  private cancel(slot: Slot): void {
    if (slot.timer !== null) this.timers.clearTimeout(slot.timer);
    slot.timer = null;
  }

  private schedule(slot: Slot, ms: number): void {
    if (this.stopped || !this.started) return;
    this.cancel(slot);
    slot.timer = this.timers.setTimeout(() => {
      slot.timer = null;
      void this.cycle(slot, true);
    }, ms);
  }

  private cycle(slot: Slot, scheduled: boolean): Promise<void> {
    if (slot.current) return slot.current;
    const run = this.runCycle(slot).finally(() => {
      slot.current = null;
      if (scheduled || slot.timer === null) this.schedule(slot, slot.def.intervalSeconds() * 1000);
    });
    slot.current = run;
    return run;
  }

  private async runCycle(slot: Slot): Promise<void> {
    const { def, status } = slot;
    const started = this.elapsed();
    const at = this.clock.now().toISOString();
    try {
      const enabled = def.enabled?.() ?? true;
      const previous = this.conditions.holding(def.owns);
      // paused at the start of the cycle or when it is applied: what it saw meanwhile is not news
      const pausedBefore = [...this.paused.keys()];
      const observed = enabled ? await def.observe(previous) : { conditions: [] };
      const paused = [...new Set([...pausedBefore, ...this.paused.keys()])];
      const observation =
        paused.length === 0
          ? observed
          : { ...observed, unobserved: [...(observed.unobserved ?? []), ...paused] };
      await this.conditions.apply(def.name, decide(observation, previous, def.owns));
      status.notes = observation.notes ?? [];
      if (status.error) this.logger.info('watcher recovered', { watcher: def.name });
      status.error = null;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // Logged once per distinct failure, not every interval.
      if (status.error?.message !== message) {
        this.logger.error('watcher failed', { watcher: def.name, error: message });
        status.error = { message, since: status.error?.since ?? at };
      }
    } finally {
      status.runs++;
      status.lastRunAt = at;
      status.lastDurationMs = Math.round((this.elapsed() - started) * 100) / 100;
    }
  }
}
