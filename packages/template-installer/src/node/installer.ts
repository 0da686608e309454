/**
 * Preview, install and stack creation (02 §4, §11): gathers host facts through the adapters,
 * runs the planning core, and creates the stack under the install lock.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError, type Clock, type HostPaths, writeFileAtomic } from '@appliance/common';
import { encodeEnvFile, parseEnvFile } from '../core/env-file.ts';
import { OutsideSubset } from '../core/interpolate.ts';
import { stackPorts } from '../core/stack-ports.ts';
import { byteOrder, ENV_NAME, isReservedName, isStackName } from '../core/names.ts';
import {
  buildPlan,
  checkRequest,
  factsNeeded,
  type HostFacts,
  installValues,
  type Plan,
  type PlanRequest,
  type RandomBytes,
  textProblem,
} from '../core/plan.ts';
import type { Catalog } from './catalog.ts';
import type { ComposeTool } from './compose-tool.ts';
import { containerPorts, type DockerEngine } from './docker-engine.ts';
import { readHostZone, readRenderDevices, readRenderGroup } from './host-facts.ts';
import { readHostSocketPorts } from './proc-net.ts';
import {
  COMPOSE_NAMES,
  logicalStackDir,
  prepareStackDir,
  readNoFollow,
  removeStackTemps,
  stackDir,
  undoStackFiles,
  wholeSeconds,
  writeStackFiles,
} from './stack-files.ts';
import { invalidStackName, stackExists, templateNotFound } from './installer-errors.ts';
import { PortsCache, readStacksPorts } from './stack-ports-reader.ts';
import {
  INSTALL_LOCK,
  type Locks,
  type StackRow,
  type StackStore,
  type StackTemplateRef,
  stackLockKey,
} from './stack-store.ts';

export interface Stack {
  name: string;
  template: StackTemplateRef | null;
  installedAt: string;
  manuallyEdited: boolean;
  directory: string;
}

export interface AuditRecord {
  operation: 'template.install' | 'stack.create';
  target: string;
  outcome: string;
}

export interface InstallerDeps {
  paths: HostPaths;
  clock: Clock;
  catalog: Catalog;
  stacks: StackStore;
  locks: Locks;
  compose: ComposeTool;
  engine: DockerEngine;
  /** The compose tool's environment (02 §11.4); also the first lookup of substitution. */
  environ: Readonly<Record<string, string>>;
  /** Share names (for path suggestions and fallbacks). */
  shares: () => Promise<string[]>;
  /** `[apps] enabled`; false answers 501 not_configured. */
  enabled?: boolean;
  random?: RandomBytes;
  /** Host sockets in use; default /proc/net through paths.procDir. */
  hostSocketPorts?: () => Promise<Set<number>>;
  /** Called once per install/create that reached the lock, before it is released. */
  audit?: (record: AuditRecord) => Promise<void> | void;
}

/**
 * The steps of a creation (02 §11.2 steps 2–7), in order, reported once the request has passed
 * every check (a refused install or create reports none): the pending row and the folder, the
 * three files (`.env` with the secrets, `docker-compose.yml`, `meta.json`), the compose tool's
 * `config` check, and the row marked installed.
 */
export const INSTALL_STEPS = ['record', 'write_files', 'compose_check', 'finish'] as const;
export type InstallStep = (typeof INSTALL_STEPS)[number];

export interface CallOptions {
  /** Writes the audit row of this call (before the install lock is released). */
  audit?: (record: AuditRecord) => Promise<void> | void;
  /** Called before each step of {@link INSTALL_STEPS} (index from 0, count 4); for progress. */
  onStep?: (step: InstallStep, index: number, count: number) => void;
}

export interface CreateStackInput {
  name: string;
  compose: string;
  env?: Record<string, string>;
}

export const toStack = (row: StackRow): Stack => ({
  name: row.name,
  template: row.template,
  installedAt: row.installedAt,
  manuallyEdited: row.manuallyEdited,
  directory: logicalStackDir(row.name),
});

export class Installer {
  private readonly cache = new PortsCache();
  private readonly random: RandomBytes;

  private readonly deps: InstallerDeps;

  constructor(deps: InstallerDeps) {
    this.deps = deps;
    this.random = deps.random ?? ((n) => randomBytes(n));
  }

  private notConfigured(): void {
    if (this.deps.enabled === false)
      throw new AppError(
        501,
        'not_configured',
        'Apps are turned off on this appliance; set [apps] enabled = true in the configuration.',
      );
  }

  private async lookup(id: string) {
    const found = await this.deps.catalog.find(id);
    if (!found) throw templateNotFound(id);
    if (!found.result.ok)
      throw new AppError(
        422,
        'template_invalid',
        `The template ${id} from source ${found.source} is not valid; fix the problems listed in details.`,
        { template: id, source: found.source, problems: found.result.problems },
      );
    return found.result.template;
  }

  private async facts(
    template: Parameters<typeof factsNeeded>[0],
    request: PlanRequest,
    mode: 'preview' | 'install',
  ): Promise<HostFacts> {
    const need = factsNeeded(template, request);
    const tool = await this.deps.compose.detect();
    const facts: HostFacts = { flavour: tool.flavour };
    if (need.networks) facts.networks = await this.deps.engine.networks();
    if (need.ports) facts.takenPorts = await this.takenPorts(tool.flavour, mode);
    if (need.shares) facts.shares = await this.deps.shares();
    if (need.renderDevices) facts.renderDevices = await readRenderDevices(this.deps.paths);
    if (need.renderGroup) facts.renderGroup = await readRenderGroup(this.deps.paths);
    if (need.hostZone) facts.hostZone = await readHostZone(this.deps.paths);
    return facts;
  }

  /** The union of host sockets, containers and every stack's published ports (02 §6). */
  async takenPorts(flavour: 'v1' | 'v2', mode: 'preview' | 'install'): Promise<Set<number>> {
    const host = await (this.deps.hostSocketPorts ?? (() => readHostSocketPorts(this.deps.paths.procDir)))();
    const rows = await this.deps.stacks.list();
    const known = new Set(rows.map((r) => `${r.name}\0${stackDir(this.deps.paths, r.name)}`));
    const containers = await containerPorts(this.deps.engine, known);
    const stacks = await readStacksPorts(
      {
        paths: this.deps.paths,
        stacks: this.deps.stacks,
        locks: this.deps.locks,
        compose: this.deps.compose,
        environ: this.deps.environ,
      },
      this.cache,
      flavour,
      mode,
    );
    return new Set([...host, ...containers, ...stacks]);
  }

  private async nameTaken(name: string): Promise<boolean> {
    if (await this.deps.stacks.get(name)) return true;
    const dir = stackDir(this.deps.paths, name);
    for (const f of COMPOSE_NAMES) {
      const text = await readNoFollow(path.join(dir, f)).catch(() => '');
      if (text !== null) return true;
    }
    return false;
  }

  /** POST /templates/:id/preview: never writes, takes no lock. */
  async preview(id: string, request: PlanRequest): Promise<Plan> {
    this.notConfigured();
    const template = await this.lookup(id);
    const name = checkRequest(template, request);
    const facts = await this.facts(template, request, 'preview');
    facts.nameTaken = await this.nameTaken(name);
    return buildPlan(template, request, facts, 'preview').plan;
  }

  /** POST /templates/:id/install: one at a time; nothing is started. */
  async install(
    id: string,
    request: PlanRequest,
    options: CallOptions = {},
  ): Promise<{ stack: Stack; plan: Plan }> {
    const audit = options.audit ?? this.deps.audit;
    this.notConfigured();
    return this.deps.locks.run(INSTALL_LOCK, async () => {
      let target = `stacks/${request.name ?? id}`;
      try {
        const template = await this.lookup(id);
        const name = checkRequest(template, request);
        target = `stacks/${name}`;
        const facts = await this.facts(template, request, 'install');
        const result = buildPlan(template, request, facts, 'install');
        if (result.missingNetwork !== null) {
          const command = `docker network create ${result.missingNetwork}`;
          throw new AppError(
            409,
            'network_missing',
            `Docker has no network named ${result.missingNetwork}; create it with "${command}" and install again.`,
            { network: result.missingNetwork, command },
          );
        }
        if (request.planDigest !== undefined && request.planDigest !== result.plan.planDigest)
          throw new AppError(
            409,
            'template_changed',
            'The template changed since the preview (the catalog was refreshed or edited); preview again and confirm the new plan.',
          );
        const values = installValues(result, this.random);
        const secrets = [...result.secretsToGenerate, ...result.suppliedSecrets.keys()].map(
          (k) => values[k]!,
        );
        const stack = await this.create(
          {
            name,
            compose: result.plan.compose,
            env: encodeEnvFile(values),
            template: { source: template.source, id: template.id, revision: template.revision },
          },
          secrets,
          options.onStep,
        );
        await audit?.({ operation: 'template.install', target, outcome: 'ok' });
        return { stack, plan: result.plan };
      } catch (e) {
        await audit?.({
          operation: 'template.install',
          target,
          outcome: e instanceof AppError ? e.code : 'internal',
        });
        throw e;
      }
    });
  }

  /** POST /stacks: a hand-made stack, under the install lock. */
  async createStack(input: CreateStackInput, options: CallOptions = {}): Promise<Stack> {
    const audit = options.audit ?? this.deps.audit;
    this.notConfigured();
    return this.deps.locks.run(INSTALL_LOCK, async () => {
      const target = `stacks/${input.name}`;
      try {
        if (!isStackName(input.name)) throw invalidStackName(input.name);
        if (input.compose.trim() === '')
          throw new AppError(
            400,
            'invalid_stack',
            'The Compose text is blank; give the docker-compose.yml content.',
            { stack: input.name },
          );
        const tool = await this.deps.compose.detect();
        const env = input.env ?? {};
        for (const key of Object.keys(env).sort(byteOrder)) {
          const problem = !ENV_NAME.test(key)
            ? `${key} is not a variable name.`
            : isReservedName(key)
              ? `${key} is reserved for the compose tool; choose another name.`
              : textProblem(key, env[key]!, tool.flavour);
          if (problem)
            throw new AppError(400, 'invalid_stack', `The variable ${problem}`, {
              stack: input.name,
              variable: key,
            });
        }
        const stack = await this.create(
          { name: input.name, compose: input.compose, env: encodeEnvFile(env), template: null },
          [],
          options.onStep,
        );
        await audit?.({ operation: 'stack.create', target, outcome: 'ok' });
        return stack;
      } catch (e) {
        await audit?.({
          operation: 'stack.create',
          target,
          outcome: e instanceof AppError ? e.code : 'internal',
        });
        throw e;
      }
    });
  }

  /** §11.2 steps 2–7 (the caller holds the install lock). */
  private async create(
    input: { name: string; compose: string; env: string; template: StackTemplateRef | null },
    secrets: readonly string[],
    onStep?: CallOptions['onStep'],
  ): Promise<Stack> {
    const { name } = input;
    if (!isStackName(name)) throw invalidStackName(name);
    if (await this.deps.stacks.get(name)) throw stackExists(name);
    const { exists } = await prepareStackDir(this.deps.paths, name);
    // every refusal is behind us: from here on each step is reported
    const step = (s: InstallStep) => onStep?.(s, INSTALL_STEPS.indexOf(s), INSTALL_STEPS.length);
    step('record');
    const installedAt = wholeSeconds(this.deps.clock.now());
    await this.deps.stacks.insertPending(
      { name, template: input.template, compose: input.compose, installedAt },
      input.env,
    );
    const dir = stackDir(this.deps.paths, name);
    try {
      step('write_files');
      await writeStackFiles(dir, {
        compose: input.compose,
        env: input.env,
        meta: { name, template: input.template, installedAt },
      });
      step('compose_check');
      await this.deps.compose.check({ name, dir }, { secrets, root: this.deps.paths.root });
      step('finish');
      await this.deps.stacks.finish(name);
    } catch (e) {
      await undoStackFiles(dir, !exists).catch(() => undefined);
      await this.deps.stacks.remove(name).catch(() => undefined);
      throw e;
    }
    return toStack({
      name,
      template: input.template,
      compose: input.compose,
      installedAt,
      manuallyEdited: false,
      pending: false,
    });
  }

  /**
   * PUT /stacks/:name/values: new inputs for an installed template stack, with the install's
   * rules (the template's kinds and checks, a taken port moved to the next free one, secrets kept
   * unless listed in `regenerate`). Only `.env` changes: the compose file refers to the inputs as
   * variables, so the install's settings and GPU edit stay. The compose tool checks the new files;
   * a refusal puts the old `.env` back. The caller restarts a running stack.
   */
  async editValues(
    name: string,
    request: { values?: Record<string, string>; regenerate?: string[] },
  ): Promise<{ stack: Stack; plan: Plan; changed: string[] }> {
    this.notConfigured();
    return this.deps.locks.run(INSTALL_LOCK, async () => {
      const row = await this.deps.stacks.get(name);
      if (!row || row.pending)
        throw new AppError(
          404,
          'stack_not_found',
          `There is no stack ${name}; list the stacks to see their names.`,
          {
            stack: name,
          },
        );
      if (!row.template)
        throw new AppError(
          409,
          'stack_has_no_inputs',
          `The stack ${name} was not installed from a template, so it has no inputs; edit its files instead.`,
          { stack: name },
        );
      const template = await this.lookup(row.template.id);
      const tool = await this.deps.compose.detect();
      const oldEnv = await this.deps.stacks.readEnv(name);
      const current = parseEnvFile(oldEnv, tool.flavour);
      const given = request.values ?? {};
      const kinds = new Map(template.inputs.map(([n, spec]) => [n, spec.kind]));
      for (const r of request.regenerate ?? [])
        if (kinds.get(r) !== 'secret')
          throw new AppError(
            400,
            'invalid_template_input',
            `${r} is not a secret input of ${template.id}; only secrets can be regenerated.`,
            {
              input: r,
            },
          );
      const values: Record<string, string> = {};
      for (const [input, kind] of kinds) {
        if (kind === 'device' && input in given && given[input] !== (current.get(input) ?? ''))
          throw new AppError(
            400,
            'invalid_template_input',
            `${input} (the GPU) cannot be changed on an installed stack: it edits the compose file; remove and install the stack again.`,
            { input },
          );
        if (request.regenerate?.includes(input)) continue;
        const v = given[input] ?? current.get(input);
        if (v !== undefined) values[input] = v;
      }
      const planRequest: PlanRequest = { name, values };
      checkRequest(template, { name, values: given });
      const facts = await this.facts(template, planRequest, 'install');
      if (facts.takenPorts) {
        // the stack's own ports are its own: they stay free for it
        let own: number[] = [];
        try {
          own = stackPorts({ compose: row.compose, env: oldEnv }, tool.flavour, this.deps.environ);
        } catch (e) {
          if (!(e instanceof OutsideSubset)) throw e;
          own = await this.deps.compose.configPorts({ name, dir: stackDir(this.deps.paths, name) });
        }
        const mine = new Set(own);
        facts.takenPorts = new Set([...facts.takenPorts].filter((p) => !mine.has(p)));
      }
      const result = buildPlan(template, planRequest, facts, 'install');
      const next = installValues(result, this.random);
      const changed = [...new Set([...Object.keys(next), ...current.keys()])]
        .filter((k) => next[k] !== current.get(k))
        .sort(byteOrder);
      const secrets = [...result.secretsToGenerate, ...result.suppliedSecrets.keys()].map((k) => next[k]!);
      const envText = encodeEnvFile(next);
      await this.deps.locks.run(stackLockKey(name), async () => {
        const dir = stackDir(this.deps.paths, name);
        const file = path.join(dir, '.env');
        const before = await readNoFollow(file);
        await writeFileAtomic(file, envText, { mode: 0o600 });
        try {
          await this.deps.compose.check({ name, dir }, { secrets, root: this.deps.paths.root });
          await this.deps.stacks.updateEnv(name, envText);
        } catch (e) {
          await writeFileAtomic(file, before ?? oldEnv, { mode: 0o600 }).catch(() => undefined);
          throw e;
        }
      });
      return { stack: toStack(row), plan: result.plan, changed };
    });
  }

  /** GET /stacks: non-pending rows in byte order. */
  async listStacks(): Promise<Stack[]> {
    const rows = await this.deps.stacks.list();
    return rows
      .filter((r) => !r.pending)
      .sort((a, b) => byteOrder(a.name, b.name))
      .map(toStack);
  }
}

/**
 * Startup: rows left pending by a crash are undone (files, folder, row), and the temp files of
 * atomic writes interrupted by a crash are removed from every stack folder (a creation's, or a
 * regeneration of missing files during an install).
 */
export async function undoPendingStacks(paths: HostPaths, stacks: StackStore): Promise<string[]> {
  const undone: string[] = [];
  for (const row of await stacks.list()) {
    const dir = stackDir(paths, row.name);
    if (!row.pending) {
      await removeStackTemps(dir);
      continue;
    }
    await undoStackFiles(dir, false);
    await fs.rmdir(dir).catch(() => undefined); // only when empty: an adopted folder's own files stay
    await stacks.remove(row.name);
    undone.push(row.name);
  }
  return undone;
}
