/**
 * The planning core shared by preview and install (02 §3–§9): request checks, input resolution,
 * port allocation, GPU edit, settings, privileges, warnings and the plan digest. Pure: host
 * facts and randomness arrive as arguments.
 */
import path from 'node:path/posix';
import { AppError } from '@appliance/common';
import { planDigest } from './digest.ts';
import { editCompose, type GpuEdit, type RestartPolicy, type Settings } from './edit.ts';
import { substituteTree } from './interpolate.ts';
import { byteOrder, isStackName } from './names.ts';
import { type Privilege, privilegeSummary, readBoolean } from './privileges.ts';
import type { InputKind, InputSpec, Template } from './template.ts';
import { isPlainObject, parseComposeYaml } from './yaml-doc.ts';
import { isValidZoneName } from './zones.ts';
import type { ComposeFlavour } from './env-file.ts';

export interface PlanRequest {
  name?: string;
  values?: Record<string, string>;
  networkMode?: string;
  restart?: RestartPolicy;
  cpus?: number;
  memoryMiB?: number;
  planDigest?: string;
}

/** Host facts, each present only when the template needs it (02 §4 step 8). */
export interface HostFacts {
  flavour: ComposeFlavour;
  /** Ports in use (§6); required when the template has a port input. */
  takenPorts?: ReadonlySet<number>;
  /** Docker network names; required for a named networkMode. */
  networks?: readonly string[];
  /** Share names. */
  shares?: readonly string[];
  /** `/dev/dri/renderD<n>` paths sorted by n. */
  renderDevices?: readonly string[];
  /** gid of group `render`; null when the host has none. */
  renderGroup?: number | null;
  /** The host's zone, when known. */
  hostZone?: string | null;
  /** Preview: a row or a folder with a Compose file has the name. */
  nameTaken?: boolean;
}

export interface PlanInput {
  name: string;
  kind: InputKind;
  role?: string;
  label?: string;
  description?: string;
  default?: string;
  value?: string;
  requestedValue?: string;
  generated: boolean;
  required: boolean;
  error?: string;
  suggestions?: string[];
}

export interface Warning {
  class: 'missing_network' | 'ports_ignored' | 'name_taken';
  message: string;
  detail?: string;
  command?: string;
}

export interface Plan {
  template: { source: string; id: string; revision: number };
  title: string;
  name: string;
  services: string[];
  inputs: PlanInput[];
  privileges: Privilege[];
  warnings: Warning[];
  compose: string;
  planDigest: string;
}

/** The plan plus what install needs and the client never sees. */
export interface PlanResult {
  plan: Plan;
  /** Resolved values of non-secret inputs. */
  values: Map<string, string>;
  /** Secrets the admin typed (kept as typed). */
  suppliedSecrets: Map<string, string>;
  /** Secret inputs to generate at install. */
  secretsToGenerate: string[];
  /** A named networkMode the Engine does not have. */
  missingNetwork: string | null;
}

export type Mode = 'preview' | 'install';

const invalidInput = (input: string, message: string) =>
  new AppError(400, 'invalid_template_input', message, { input });

/** What host facts a request needs (02 §4 step 8). */
export function factsNeeded(template: Template, request: PlanRequest) {
  const kinds = new Set(template.inputs.map(([, s]) => s.kind));
  const device = template.inputs.find(([, s]) => s.kind === 'device');
  const gpuChosen = device !== undefined && (request.values?.[device[0]] ?? '') !== '';
  const nm = request.networkMode;
  return {
    networks: nm !== undefined && nm !== 'bridge' && nm !== 'host',
    ports: kinds.has('port'),
    shares: kinds.has('path'),
    renderDevices: kinds.has('device'),
    renderGroup: gpuChosen,
    hostZone: kinds.has('timezone'),
  };
}

/** Steps 5–7: stack name, value keys, settings on multi-service templates. */
export function checkRequest(template: Template, request: PlanRequest): string {
  const name = request.name ?? template.id;
  if (!isStackName(name))
    throw new AppError(
      400,
      'invalid_stack_name',
      'A stack name is 1 to 63 characters: lower case letters, digits, "_" and "-", starting with a letter or digit.',
      { name },
    );
  const declared = new Set(template.inputs.map(([n]) => n));
  for (const key of Object.keys(request.values ?? {}).sort(byteOrder)) {
    if (!declared.has(key))
      throw invalidInput(
        key,
        `The template ${template.id} has no input ${key}; use one of: ${[...declared].join(', ') || '(none)'}.`,
      );
  }
  if (template.services.length > 1) {
    for (const setting of ['networkMode', 'cpus', 'memoryMiB'] as const) {
      if (request[setting] !== undefined)
        throw invalidInput(
          setting,
          `${setting} applies only to single-service templates; ${template.id} has ${template.services.length} services.`,
        );
    }
  }
  return name;
}

/** §5.2 text rules; null when the value is fine. */
export function textProblem(name: string, value: string, flavour: ComposeFlavour): string | null {
  if (value.length > 4096) return `${name}: the value is longer than 4096 characters.`;
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
    return `${name}: the value holds a line break or control character; remove it.`;
  if (/[\uD800-\uDFFF]/.test(value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')))
    return `${name}: the value is not valid Unicode.`;
  if (value.endsWith('\\')) return `${name}: the value may not end with "\\".`;
  if (flavour === 'v1' && value.includes('$'))
    return `${name}: the value may not contain "$" with docker-compose v1; remove it or install the Compose v2 plugin.`;
  return null;
}

/** Lexical normalisation of an absolute path (02 §5.1). */
export function normalizeInputPath(p: string): string {
  const n = path.normalize(p);
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

const PORT = /^[1-9][0-9]{0,4}$/;

/** Lowest port ≥ asked that is not taken, or null. */
export function allocatePort(asked: number, taken: ReadonlySet<number>): number | null {
  for (let p = asked; p <= 65535; p++) if (!taken.has(p)) return p;
  return null;
}

/** Steps 9–13. Throws the step's AppError; a preview reports a missing required value as `error`. */
export function buildPlan(
  template: Template,
  request: PlanRequest,
  facts: HostFacts,
  mode: Mode,
): PlanResult {
  const name = checkRequest(template, request);
  const given = request.values ?? {};
  const inputs: PlanInput[] = [];
  const values = new Map<string, string>();
  const suppliedSecrets = new Map<string, string>();
  const secretsToGenerate: string[] = [];
  const taken = new Set<number>(facts.takenPorts ?? []);
  const shares = [...(facts.shares ?? [])].sort(byteOrder);
  const renderDevices = [...(facts.renderDevices ?? [])];
  let gpuDevice = '';

  for (const [inputName, spec] of template.inputs) {
    const entry = describeInput(inputName, spec);
    const requested = given[inputName] ?? '';
    let value = requested !== '' ? requested : (spec.default ?? '');
    const needs = (what: string) => {
      if (mode === 'install')
        throw invalidInput(inputName, `${inputName} needs ${what}; give it in values.${inputName}.`);
      entry.error = `${inputName} needs ${what}`;
    };
    switch (spec.kind) {
      case 'path': {
        if (
          value === '' &&
          (spec.role === 'media' || spec.role === 'downloads') &&
          shares.includes(spec.role)
        )
          value = `/mnt/user/${spec.role}`;
        if (spec.role !== 'appdata' && shares.length) entry.suggestions = shares.map((s) => `/mnt/user/${s}`);
        if (value === '') {
          needs('a path');
          break;
        }
        if (!value.startsWith('/') || value.includes(':'))
          throw invalidInput(
            inputName,
            `${inputName} must be an absolute path without ":", such as /mnt/user/media.`,
          );
        value = normalizeInputPath(value);
        break;
      }
      case 'port': {
        if (value === '') {
          needs('a port');
          break;
        }
        if (!PORT.test(value) || Number(value) > 65535)
          throw invalidInput(inputName, `${inputName} must be a port from 1 to 65535`);
        break;
      }
      case 'string':
        if (value === '' && !spec.optional) needs('a value');
        break;
      case 'secret':
        break;
      case 'timezone': {
        if (value === '') value = facts.hostZone && isValidZoneName(facts.hostZone) ? facts.hostZone : 'UTC';
        else if (!isValidZoneName(value))
          throw invalidInput(
            inputName,
            `${inputName}: ${value} is not a time zone name; use a name such as Europe/Vienna or UTC.`,
          );
        break;
      }
      case 'device': {
        if (renderDevices.length) entry.suggestions = renderDevices;
        if (value !== '' && !renderDevices.includes(value))
          throw invalidInput(
            inputName,
            `${inputName}: ${value} is not one of the host's GPU render devices: ${renderDevices.join(', ') || '(none)'}`,
          );
        gpuDevice = value;
        break;
      }
    }
    if (value !== '' || spec.kind === 'device' || spec.kind === 'string') {
      const problem = textProblem(inputName, value, facts.flavour);
      if (problem) throw invalidInput(inputName, problem);
    }
    if (spec.kind === 'port' && value !== '') {
      const asked = Number(value);
      const port = allocatePort(asked, taken);
      if (port === null)
        throw new AppError(
          409,
          'no_free_port',
          `No port from ${asked} to 65535 is free for ${inputName}; free one or choose a lower port.`,
          {
            input: inputName,
            requested: asked,
          },
        );
      taken.add(port);
      if (port !== asked) entry.requestedValue = String(asked);
      value = String(port);
    }
    if (spec.kind === 'secret') {
      if (requested !== '') {
        const problem = textProblem(inputName, requested, facts.flavour);
        if (problem) throw invalidInput(inputName, problem);
        suppliedSecrets.set(inputName, requested);
      } else {
        entry.generated = true;
        secretsToGenerate.push(inputName);
      }
    } else {
      entry.value = value;
      values.set(inputName, value);
    }
    inputs.push(entry);
  }

  // Step 10: GPU → render group.
  let gpu: GpuEdit | null = null;
  if (gpuDevice !== '') {
    const deviceInput = template.inputs.find(([, s]) => s.kind === 'device')![0];
    if (facts.renderGroup === null || facts.renderGroup === undefined)
      throw new AppError(
        409,
        'gpu_unavailable',
        `The host has no "render" group, so containers cannot use ${gpuDevice}; install the GPU driver (which creates the group) or choose no GPU.`,
        { input: deviceInput },
      );
    gpu = { device: gpuDevice, groupId: facts.renderGroup };
  }

  // Step 11: settings and GPU edit.
  const settings: Settings = {};
  if (request.networkMode !== undefined) settings.networkMode = request.networkMode;
  if (request.restart !== undefined) settings.restart = request.restart;
  if (request.cpus !== undefined) settings.cpus = request.cpus;
  if (request.memoryMiB !== undefined) settings.memoryMiB = request.memoryMiB;
  const compose = editCompose(template, settings, gpu);

  // Step 12: privileged must read as a boolean once values are in.
  const raw = parseComposeYaml(compose).data as Record<string, unknown>;
  const lookup = (n: string) => values.get(n);
  const services = isPlainObject(raw['services']) ? raw['services'] : {};
  for (const svc of Object.values(services)) {
    const priv = isPlainObject(svc) ? svc['privileged'] : undefined;
    if (typeof priv === 'string') {
      const ref = /^\$\{([A-Z][A-Z0-9_]*)\}$/.exec(priv)?.[1] ?? priv;
      const substituted = substituteTree(priv, lookup);
      if (readBoolean(substituted) === null)
        throw invalidInput(
          ref,
          `${ref} sets "privileged" and must be true or false (yes/no, on/off also work).`,
        );
    }
  }

  // Step 13: privileges, warnings, digest.
  const model = substituteTree(raw, lookup);
  const privileges = privilegeSummary(model);
  const warnings: Warning[] = [];
  const nm = request.networkMode;
  let missingNetwork: string | null = null;
  if (nm !== undefined && nm !== 'bridge' && nm !== 'host' && !(facts.networks ?? []).includes(nm)) {
    missingNetwork = nm;
    warnings.push({
      class: 'missing_network',
      message: `Docker has no network named ${nm}; create it with "docker network create ${nm}" before installing.`,
      detail: nm,
      command: `docker network create ${nm}`,
    });
  }
  const modelServices = isPlainObject(model) && isPlainObject(model['services']) ? model['services'] : {};
  for (const svcName of Object.keys(modelServices).sort(byteOrder)) {
    const svc = modelServices[svcName];
    if (
      isPlainObject(svc) &&
      svc['network_mode'] === 'host' &&
      Array.isArray(svc['ports']) &&
      svc['ports'].length > 0
    )
      warnings.push({
        class: 'ports_ignored',
        message: `${svcName} uses the host's network, so its published ports are ignored; it listens on the host directly.`,
        detail: svcName,
      });
  }
  if (mode === 'preview' && facts.nameTaken)
    warnings.push({
      class: 'name_taken',
      message: `A stack named ${name} already exists; choose another name to install this one.`,
      detail: name,
    });
  const template_ = { source: template.source, id: template.id, revision: template.revision };
  const digest = planDigest({
    compose,
    id: template.id,
    privileges,
    revision: template.revision,
    source: template.source,
  });
  return {
    plan: {
      template: template_,
      title: template.title,
      name,
      services: [...template.services].sort(byteOrder),
      inputs,
      privileges,
      warnings,
      compose,
      planDigest: digest,
    },
    values,
    suppliedSecrets,
    secretsToGenerate,
    missingNetwork,
  };
}

function describeInput(name: string, spec: InputSpec): PlanInput {
  const entry: PlanInput = {
    name,
    kind: spec.kind,
    generated: false,
    required: spec.kind === 'path' || spec.kind === 'port' || (spec.kind === 'string' && !spec.optional),
  };
  if (spec.role !== undefined) entry.role = spec.role;
  if (spec.label !== undefined) entry.label = spec.label;
  if (spec.description !== undefined) entry.description = spec.description;
  if (spec.default !== undefined) entry.default = spec.default;
  return entry;
}

/** Random source for secrets (crypto.randomBytes in production). */
export type RandomBytes = (n: number) => Uint8Array;

/** Step 14: secrets and the `.env` values (every input, byte order). */
export function installValues(result: PlanResult, random: RandomBytes): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of result.values) out[k] = v;
  for (const [k, v] of result.suppliedSecrets) out[k] = v;
  for (const k of result.secretsToGenerate) out[k] = Buffer.from(random(24)).toString('hex');
  return out;
}
