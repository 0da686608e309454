/**
 * In-memory ports of the plan operations (`PlanAdminPorts`): plans and their states in maps, an
 * audit log, the installation's facts as plain lists, a job runner that records what it started,
 * destinations attached by label, shared conditions in a map, and a manual clock.
 */
import { isoMillis, refuse } from '@appliance/common';
import type { JobKind, JobView } from '@appliance/jobs';
import type { PlanSpec } from '../core/plan.ts';
import type { ScheduleDeps } from '../jobs/schedules.ts';
import type { PlanAdminPorts, PlanStatusState, PlanTx, StoredPlan } from '../ports.ts';

export interface StartedRecord {
  type: string;
  params: unknown;
  target: string;
  auditOperation: string;
}

export interface MemoryPlanAdminPorts extends PlanAdminPorts {
  stored: Map<string, StoredPlan>;
  states: Map<string, PlanStatusState>;
  audits: { operation: string; target: string; details?: Record<string, unknown> }[];
  /** Installed stacks (`pending: true`: still installing), shares, registered disks. */
  installation: {
    stacks: { name: string; pending: boolean }[];
    shares: string[];
    disks: { label: string; backupDestination: boolean }[];
    passphraseSet: boolean;
  };
  /** Labels of the disks attached now (others: `backup_destination_missing`). */
  attached: Set<string>;
  started: StartedRecord[];
  /** Jobs that run now (what `runningOf` answers, by type). */
  runningJobs: JobView<Record<string, unknown>, unknown>[];
  /** Shared conditions held now, by key. */
  conditions: Map<string, unknown>;
  /** Moves the manual clock. */
  setNow(at: string): void;
}

/** A stored-plan state with nothing recorded yet (`since` = at). */
export const emptyState = (since: string): PlanStatusState => ({
  since,
  lastScheduledAt: null,
  lastDrillAt: null,
  lastDrillScheduledAt: null,
  firstSuccessAt: null,
  lastSuccessAt: null,
  lastRunJobId: null,
  lastRunState: null,
  lastRunAt: null,
  lastDrillJobId: null,
  lastDrillState: null,
});

export function memoryPlanAdminPorts(options: { now: string; timeZone?: string }): MemoryPlanAdminPorts {
  let now = new Date(options.now);
  const clock = { now: () => now };
  const stored = new Map<string, StoredPlan>();
  const states = new Map<string, PlanStatusState>();
  const audits: MemoryPlanAdminPorts['audits'] = [];
  const started: StartedRecord[] = [];
  const runningJobs: MemoryPlanAdminPorts['runningJobs'] = [];
  const conditions = new Map<string, unknown>();
  const attached = new Set<string>();
  const installation: MemoryPlanAdminPorts['installation'] = {
    stacks: [],
    shares: [],
    disks: [],
    passphraseSet: true,
  };
  const toPlan = (name: string, spec: PlanSpec, sealed: Buffer | null, at: string): StoredPlan => ({
    name,
    ...structuredClone(spec),
    createdAt: stored.get(name)?.createdAt ?? at,
    updatedAt: at,
    sealedPassword: sealed,
  });
  const tx: PlanTx = {
    read: (name) => stored.get(name) ?? null,
    insert: (name, spec, sealed, at) => {
      stored.set(name, toPlan(name, spec, sealed, at));
      states.set(name, emptyState(at));
    },
    update: (name, spec, at) => {
      stored.set(name, toPlan(name, spec, stored.get(name)!.sealedPassword, at));
    },
    delete: (name) => {
      stored.delete(name);
      states.delete(name);
    },
    audit: (entry) => void audits.push(entry),
  };
  const list = () => [...stored.values()].sort((a, b) => a.name.localeCompare(b.name));
  const schedules: ScheduleDeps = {
    plans: {
      list,
      state: (plan) => states.get(plan) ?? null,
      withState: async () =>
        list().map((plan) => {
          if (!states.has(plan.name)) states.set(plan.name, emptyState(isoMillis(now)));
          return { plan, state: states.get(plan.name)! };
        }),
      markScheduled: async (plan, field, at) => {
        const s = states.get(plan);
        if (s) s[field] = at;
      },
    },
    timeZone: () => options.timeZone ?? 'UTC',
    clock,
    start: async () => {
      throw new Error('no scheduled start in these tests');
    },
    scheduler: { register: () => undefined },
    conditions: {
      holding: (prefixes) =>
        [...conditions.keys()].filter((k) => prefixes.some((p) => k.startsWith(p))).map((key) => ({ key })),
      hold: async (key, event) => void conditions.set(key, event),
      clear: async (key) => void conditions.delete(key),
    },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  };
  let nextId = 1;
  return {
    stored,
    states,
    audits,
    installation,
    attached,
    started,
    runningJobs,
    conditions,
    setNow: (at) => {
      now = new Date(at);
    },
    plans: { list, read: tx.read, state: (plan) => states.get(plan) ?? null },
    // a throw leaves nothing written: the transaction works on copies, kept only at its end
    write: async (fn) => {
      const plansBefore = new Map(stored);
      const statesBefore = new Map(states);
      const auditsBefore = audits.length;
      try {
        return fn(tx);
      } catch (err) {
        stored.clear();
        for (const [k, p] of plansBefore) stored.set(k, p);
        states.clear();
        for (const [k, s] of statesBefore) states.set(k, s);
        audits.length = auditsBefore;
        throw err;
      }
    },
    facts: {
      stacks: () => installation.stacks,
      shares: () => installation.shares,
      destinations: async () => installation.disks,
      passphraseSet: () => installation.passphraseSet,
    },
    seal: (password) => Buffer.from(`sealed:${password}`),
    randomBytes: (size) => Buffer.alloc(size, 7),
    jobs: {
      start: async <P, R>(kind: JobKind<P, R>, params: P, o: { target: string; auditOperation: string }) => {
        started.push({ type: kind.type, params, ...o });
        const view = {
          id: `job-${nextId++}`,
          type: kind.type,
          target: o.target,
          state: 'running',
          params,
        } as unknown as JobView<P, R>;
        return { view };
      },
      runningOf: <P, R>(kind: JobKind<P, R>) =>
        runningJobs.filter((j) => j.type === kind.type) as unknown as JobView<P, R>[],
    },
    checkDestination: async (label) => {
      if (!attached.has(label))
        throw refuse('backup_destination_missing', `The backup disk "${label}" is not attached.`, { label });
    },
    schedules,
    clock,
  };
}
