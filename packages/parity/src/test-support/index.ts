/**
 * In-memory ports of the parity jobs, for tests and examples: the settings and state in memory,
 * an event recorder, a metadata saver that records its calls, and the slots of an array whose
 * mountpoints are real directories (present when mounted).
 */
import type { RaisedEvent } from '../core/messages.ts';
import { DEFAULT_PARITY_SETTINGS, type ParitySettings } from '../core/settings.ts';
import { isMountPoint } from '../node/mounts.ts';
import type {
  MetadataOutcome,
  MetadataSaver,
  ParityEventSink,
  ParitySlot,
  ParityState,
  ParityStore,
  SlotsReader,
} from '../ports.ts';

export class MemoryParityStore implements ParityStore {
  current: ParityState = { lastDiff: null, lastStatus: null, blockedSince: null };
  values: ParitySettings;
  /** Every patch written, in order. */
  readonly updates: Partial<ParityState>[] = [];

  constructor(settings: Partial<ParitySettings> = {}) {
    this.values = { ...DEFAULT_PARITY_SETTINGS, ...settings };
  }
  settings(): ParitySettings {
    return { ...this.values };
  }
  state(): ParityState {
    return structuredClone(this.current);
  }
  async update(patch: Partial<ParityState>): Promise<void> {
    this.updates.push(structuredClone(patch));
    this.current = { ...this.current, ...structuredClone(patch) };
  }
}

/** Records every event raised and every condition held. */
export class RecordingParityEvents implements ParityEventSink {
  readonly raised: RaisedEvent[] = [];
  readonly held: Array<{ key: string; event: RaisedEvent }> = [];
  async raise(event: RaisedEvent): Promise<void> {
    this.raised.push(event);
  }
  async hold(key: string, event: RaisedEvent): Promise<void> {
    this.held.push({ key, event });
  }
}

/** A metadata saver that saves nothing and records each call (the sync's last step). */
export class RecordingMetadata implements MetadataSaver {
  calls = 0;
  outcome: MetadataOutcome = { saved: [], skipped: [] };
  async save(job: { signal: AbortSignal }): Promise<MetadataOutcome | null> {
    this.calls += 1;
    return job.signal.aborted ? null : structuredClone(this.outcome);
  }
}

/** Fixed slots whose mountpoints are real paths: a slot is present while its disk is mounted there. */
export function mountedSlots(slots: readonly ParitySlot[]): SlotsReader {
  return { list: () => slots, present: (slot) => isMountPoint(slot.mountpoint) };
}
