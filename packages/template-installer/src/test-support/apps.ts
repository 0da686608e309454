/**
 * In-memory ports of the apps operations (`operations/`): stacks whose Engine is a list of
 * containers, a job runner that records what it starts, an installer stub, and the audit rows,
 * files and progress events recorded.
 */
import { conflict } from '@appliance/common';
import type { JobView } from '@appliance/jobs';
import type { StackJobPorts } from '../jobs/ports.ts';
import type { Plan } from '../core/plan.ts';
import type { Stack } from '../node/installer.ts';
import { createLocks, createMemoryStackStore } from '../node/stack-store.ts';
import type { AppsAuditEntry, AppsPorts } from '../operations/ports.ts';
import type { EngineContainerSummary, HostListener, StacksDeps } from '../stacks/ports.ts';

/** Stacks in memory: their rows, the Engine's containers, the host's listeners and each stack's published ports. */
export function memoryStacksDeps(
  options: {
    containers?: EngineContainerSummary[];
    listeners?: HostListener[];
    published?: Record<string, number[]>;
  } = {},
) {
  const containers = options.containers ?? [];
  const stacks = createMemoryStackStore();
  const deps: StacksDeps = {
    stacks,
    locks: createLocks(),
    engine: {
      containers: async (project) => containers.filter((c) => project === undefined || c.project === project),
      imageDigests: async () => new Map(),
      containerReference: async () => null,
      imageId: async () => null,
      tagImage: async () => undefined,
      logs: async function* () {},
    },
    compose: { run: async () => ({ exitCode: 0, stdout: '', stderr: '', cancelled: false }) },
    listeners: async () => options.listeners ?? [],
    publishedPorts: async (name) => options.published?.[name] ?? [],
    bindSources: async () => [],
    appDataRoot: '/nonexistent/cache',
    stackDir: (name) => `/nonexistent/stacks/${name}`,
    updates: async () => new Map(),
  };
  /** Adds an installed stack row. */
  const addStack = async (name: string, template: Stack['template'] = null) => {
    await stacks.insertPending(
      { name, template, compose: 'services:\n  web: {image: a}\n', installedAt: 'x' },
      '',
    );
    await stacks.finish(name);
  };
  return Object.assign(deps, { containers, addStack });
}

/** A container of `project`'s service `web` in `state`, publishing `ports`. */
export const memoryContainer = (
  project: string,
  state = 'running',
  ports: number[] = [],
): EngineContainerSummary => ({
  id: `${project}-1`,
  name: `${project}_web_1`,
  project,
  service: 'web',
  state,
  status: state,
  image: 'a',
  imageId: 'sha256:a',
  ports: ports.map((p) => ({ hostIp: '0.0.0.0', published: p, target: p, protocol: 'tcp' })),
});

/** What the installer stub answers and is asked. */
export interface InstallerStub {
  /** Inputs changed by a values edit (default none); an Error here is thrown instead. */
  changed: string[] | Error;
  calls: string[];
}

const stackOf = (name: string): Stack => ({
  name,
  template: null,
  installedAt: 'x',
  manuallyEdited: false,
  directory: `/var/lib/appliance/stacks/${name}`,
});

/** The apps operations' ports over `stackJobs`, with an installer stub and a runner that records its jobs. */
export function memoryAppsPorts(stackJobs: StackJobPorts) {
  const audits: AppsAuditEntry[] = [];
  const files: string[] = [];
  const events: unknown[] = [];
  const started: { type: string; params: unknown; target: string; auditOperation: string }[] = [];
  const busy = new Set<string>();
  const stub: InstallerStub = { changed: [], calls: [] };
  const plan = { planDigest: 'd' } as Plan;
  const ports: AppsPorts = {
    jobs: {
      assertFree(groups) {
        const held = groups.find((g) => busy.has(g));
        if (held) throw conflict('job_running', `A job holds ${held}.`);
      },
      async start(kind, params, options) {
        started.push({ type: kind.type, params, ...options });
        const view = { id: `job-${started.length}`, type: kind.type, params } as unknown as JobView<
          typeof params,
          never
        >;
        return { view };
      },
    },
    stackJobs,
    installer: {
      async preview(id, request) {
        stub.calls.push(`preview ${id} ${JSON.stringify(request)}`);
        return plan;
      },
      async install(id, request, options) {
        stub.calls.push(`install ${id}`);
        const name = request.name ?? id;
        options?.onStep?.('record', 0, 4);
        await options?.audit?.({ operation: 'template.install', target: `stacks/${name}`, outcome: 'ok' });
        return { stack: stackOf(name), plan };
      },
      async createStack(input, options) {
        stub.calls.push(`create ${input.name} ${JSON.stringify(input.env ?? null)}`);
        await options?.audit?.({ operation: 'stack.create', target: `stacks/${input.name}`, outcome: 'ok' });
        return stackOf(input.name);
      },
      async editValues(name, request) {
        stub.calls.push(`values ${name} ${JSON.stringify(request)}`);
        if (stub.changed instanceof Error) throw stub.changed;
        return { stack: stackOf(name), plan, changed: stub.changed };
      },
    },
    audit: async (entry) => void audits.push(entry),
    statusOf: (e) => (e as { status?: number }).status ?? 500,
    stacksDir: '/real/stacks',
    recordFile: (file) => void files.push(file),
    publishProgress: (data) => void events.push(data),
    uuid: () => 'op-1',
  };
  return Object.assign(ports, { audits, files, events, started, busy, stub });
}
