/** Template file validation and lint (02 §1.2): every failure is one entry of `problems`. */
import { OutsideSubset, tokenize } from './interpolate.ts';
import { byteOrder, CATEGORY, INPUT_NAME, isReservedName, SERVICE_NAME } from './names.ts';
import { isPlainObject, parseComposeYaml, YamlProblem } from './yaml-doc.ts';
import { isValidZoneName } from './zones.ts';

export const TEMPLATE_MAX_BYTES = 256 * 1024;

export type InputKind = 'path' | 'port' | 'string' | 'secret' | 'timezone' | 'device';
export type PathRole = 'appdata' | 'share' | 'media' | 'downloads';

export interface InputSpec {
  kind: InputKind;
  role?: PathRole | 'gpu';
  /** The template default as a string (ports in decimal). */
  default?: string;
  label?: string;
  description?: string;
  optional?: boolean;
}

export interface Template {
  source: string;
  id: string;
  revision: number;
  title: string;
  categories: string[];
  docs: string;
  webui: string | null;
  /** Inputs by name, in byte order of name. */
  inputs: [string, InputSpec][];
  /** Service names in document order. */
  services: string[];
  /** The file's text, exactly as read. */
  text: string;
}

export interface Problem {
  path: string;
  message: string;
}

export type TemplateResult =
  | { ok: true; template: Template }
  | { ok: false; problems: Problem[]; title: string; categories: string[]; revision: number | null };

const SERVICE_KEYS = new Set([
  'image',
  'command',
  'entrypoint',
  'environment',
  'env_file',
  'ports',
  'expose',
  'volumes',
  'devices',
  'device_cgroup_rules',
  'cap_add',
  'cap_drop',
  'privileged',
  'security_opt',
  'group_add',
  'user',
  'working_dir',
  'restart',
  'depends_on',
  'healthcheck',
  'labels',
  'logging',
  'networks',
  'network_mode',
  'dns',
  'dns_search',
  'extra_hosts',
  'hostname',
  'init',
  'ipc',
  'pid',
  'runtime',
  'shm_size',
  'sysctls',
  'tmpfs',
  'ulimits',
  'stop_grace_period',
  'stop_signal',
  'read_only',
  'tty',
  'stdin_open',
  'deploy',
  'mem_limit',
  'mem_reservation',
  'cpus',
  'platform',
  'pull_policy',
]);
const X_SERVICE_KEYS = new Set([
  'schema',
  'id',
  'revision',
  'title',
  'categories',
  'docs',
  'webui',
  'inputs',
]);
const INPUT_KEYS = new Set(['kind', 'role', 'default', 'label', 'description', 'optional']);
const KINDS = new Set<InputKind>(['path', 'port', 'string', 'secret', 'timezone', 'device']);
const PATH_ROLES = new Set(['appdata', 'share', 'media', 'downloads']);

const oneLine = (s: string) => !/[\r\n]/.test(s);
const isUrl = (s: string) => s.length <= 2048 && /^https?:\/\/[^\s]+$/.test(s);

/** Validates a template file read from `<source>/<id>/compose.yaml`. */
export function parseTemplate(
  bytes: Uint8Array | string,
  where: { source: string; id: string },
): TemplateResult {
  const problems: Problem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  const meta = { title: where.id, categories: [] as string[], revision: null as number | null };
  const fail = () => ({ ok: false as const, problems, ...meta });

  const size = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.byteLength;
  if (size > TEMPLATE_MAX_BYTES) {
    add('', `the file is ${size} bytes; a template may have at most ${TEMPLATE_MAX_BYTES}`);
    return fail();
  }
  let text: string;
  try {
    text = typeof bytes === 'string' ? bytes : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    add('', 'the file is not valid UTF-8');
    return fail();
  }
  if (text.charCodeAt(0) === 0xfeff) {
    add('', 'the file starts with a byte order mark; save it as UTF-8 without one');
    return fail();
  }
  let data: unknown;
  try {
    data = parseComposeYaml(text).data;
  } catch (e) {
    if (!(e instanceof YamlProblem)) throw e;
    add('', e.message);
    return fail();
  }
  if (!isPlainObject(data)) {
    add('', 'the file must be a YAML mapping with "services" and "x-service"');
    return fail();
  }

  // x-service block.
  const xs = data['x-service'];
  const inputs = new Map<string, InputSpec>();
  let webui: string | null = null;
  let revision = 0;
  let docs = '';
  if (!isPlainObject(xs)) {
    add('x-service', 'the x-service block is missing or not a mapping');
  } else {
    for (const key of Object.keys(xs)) if (!X_SERVICE_KEYS.has(key)) add(`x-service.${key}`, 'unknown key');
    if (xs['schema'] !== 1) add('x-service.schema', 'must be 1');
    if (xs['id'] !== where.id) add('x-service.id', `must equal the folder name "${where.id}"`);
    const rev = xs['revision'];
    if (typeof rev === 'number' && Number.isInteger(rev) && rev >= 1 && rev <= 2147483647) {
      revision = rev;
      meta.revision = rev;
    } else add('x-service.revision', 'must be an integer from 1 to 2147483647');
    const title = xs['title'];
    if (typeof title === 'string' && title.length >= 1 && title.length <= 80 && oneLine(title))
      meta.title = title;
    else add('x-service.title', 'must be one line of 1 to 80 characters');
    const cats = xs['categories'];
    if (
      Array.isArray(cats) &&
      cats.length >= 1 &&
      cats.length <= 8 &&
      cats.every((c) => typeof c === 'string' && CATEGORY.test(c)) &&
      new Set(cats).size === cats.length
    )
      meta.categories = cats as string[];
    else add('x-service.categories', 'must be 1 to 8 unique names like "media" or "home-automation"');
    if (typeof xs['docs'] === 'string' && isUrl(xs['docs'])) docs = xs['docs'];
    else add('x-service.docs', 'must be an http(s):// URL of at most 2048 characters');
    if (xs['webui'] !== undefined) {
      if (typeof xs['webui'] === 'string' && isUrl(xs['webui'])) webui = xs['webui'];
      else add('x-service.webui', 'must be an http(s):// URL of at most 2048 characters');
    }
    checkInputs(xs['inputs'], inputs, add);
  }

  // Compose part.
  const services = checkCompose(data, inputs, add);
  checkReferences(data, inputs, add);

  if (problems.length > 0) return fail();
  return {
    ok: true,
    template: {
      source: where.source,
      id: where.id,
      revision,
      title: meta.title,
      categories: meta.categories,
      docs,
      webui,
      inputs: [...inputs.entries()].sort((a, b) => byteOrder(a[0], b[0])),
      services,
      text,
    },
  };
}

function checkInputs(
  raw: unknown,
  inputs: Map<string, InputSpec>,
  add: (p: string, m: string) => void,
): void {
  if (raw === undefined) return;
  if (!isPlainObject(raw)) {
    add('x-service.inputs', 'must be a mapping of input name to input spec');
    return;
  }
  const names = Object.keys(raw);
  if (names.length > 64) add('x-service.inputs', 'at most 64 inputs');
  let devices = 0;
  for (const name of names) {
    const at = `x-service.inputs.${name}`;
    if (!INPUT_NAME.test(name)) {
      add(at, 'input names are upper case: letters, digits and "_", starting with a letter (at most 64)');
      continue;
    }
    if (isReservedName(name)) {
      add(at, `${name} is reserved (PATH, HOME, LANG, LC_ALL, XDG_RUNTIME_DIR, DOCKER_*, COMPOSE_*)`);
      continue;
    }
    const spec = raw[name];
    if (!isPlainObject(spec)) {
      add(at, 'must be a mapping with a "kind"');
      continue;
    }
    let bad = false;
    const no = (key: string, why: string) => {
      add(`${at}.${key}`, why);
      bad = true;
    };
    for (const key of Object.keys(spec)) if (!INPUT_KEYS.has(key)) no(key, 'unknown key');
    const kind = spec['kind'];
    if (typeof kind !== 'string' || !KINDS.has(kind as InputKind)) {
      no('kind', 'must be one of path, port, string, secret, timezone, device');
      continue;
    }
    const out: InputSpec = { kind: kind as InputKind };
    const role = spec['role'];
    const def = spec['default'];
    if (kind === 'path') {
      if (typeof role !== 'string' || !PATH_ROLES.has(role))
        no('role', 'a path needs a role: appdata, share, media or downloads');
      else out.role = role as PathRole;
    } else if (kind === 'device') {
      if (role !== 'gpu') no('role', 'a device needs role gpu');
      else out.role = 'gpu';
      devices++;
      if (devices === 2) no('kind', 'a template has at most one device input');
    } else if (role !== undefined) no('role', `a ${kind} input takes no role`);

    if (def !== undefined) {
      if (kind === 'secret' || kind === 'device') no('default', `a ${kind} input takes no default`);
      else if (kind === 'port') {
        if (typeof def === 'number' && Number.isInteger(def) && def >= 1 && def <= 65535)
          out.default = String(def);
        else no('default', 'a port default is an integer from 1 to 65535');
      } else if (typeof def !== 'string') no('default', 'the default must be a string');
      else if (kind === 'path') {
        const under = out.role === 'appdata' ? '/mnt/cache/' : '/mnt/user/';
        if (
          !def.startsWith(under) ||
          def.length <= under.length ||
          def.includes(':') ||
          def.includes('/../') ||
          def.endsWith('/..')
        )
          no('default', `the default must be an absolute path under ${under}`);
        else out.default = def;
      } else if (kind === 'timezone') {
        if (!isValidZoneName(def))
          no('default', 'the default must be a time zone name such as Europe/Vienna');
        else out.default = def;
      } else if (kind === 'string') {
        if (spec['optional'] === true) no('default', 'an optional string takes no default');
        else if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(def) || def.endsWith('\\') || def.length > 4096)
          no('default', 'the default holds a control character, ends with "\\" or is too long');
        else out.default = def;
      }
    }
    const label = spec['label'];
    if (label !== undefined) {
      if (typeof label === 'string' && label.length >= 1 && label.length <= 80 && oneLine(label))
        out.label = label;
      else no('label', 'must be one line of 1 to 80 characters');
    }
    const description = spec['description'];
    if (description !== undefined) {
      if (typeof description === 'string' && description.length <= 500) out.description = description;
      else no('description', 'must be a string of at most 500 characters');
    }
    const optional = spec['optional'];
    if (optional !== undefined) {
      if (kind !== 'string') no('optional', 'only a string input can be optional');
      else if (typeof optional !== 'boolean') no('optional', 'must be true or false');
      else out.optional = optional;
    }
    if (!bad) inputs.set(name, out);
  }
}

function checkCompose(
  data: Record<string, unknown>,
  inputs: Map<string, InputSpec>,
  add: (p: string, m: string) => void,
): string[] {
  for (const key of Object.keys(data)) {
    if (!['services', 'volumes', 'networks', 'x-service'].includes(key) && !key.startsWith('x-'))
      add(key, 'top-level key not allowed (only services, volumes, networks and x-*)');
  }
  const services = data['services'];
  if (!isPlainObject(services) || Object.keys(services).length === 0) {
    add('services', 'at least one service is needed');
    return [];
  }
  const volumes = isPlainObject(data['volumes']) ? data['volumes'] : {};
  if (data['volumes'] !== undefined && data['volumes'] !== null && !isPlainObject(data['volumes']))
    add('volumes', 'must be a mapping');
  const names = Object.keys(services);
  for (const name of names) {
    const at = `services.${name}`;
    if (!SERVICE_NAME.test(name)) add(at, 'service names are lower case letters, digits, "_", "." and "-"');
    const svc = services[name];
    if (!isPlainObject(svc)) {
      add(at, 'must be a mapping');
      continue;
    }
    for (const key of Object.keys(svc)) {
      if (!SERVICE_KEYS.has(key) && !key.startsWith('x-')) add(`${at}.${key}`, 'service key not allowed');
    }
    if (typeof svc['image'] !== 'string' || svc['image'] === '')
      add(`${at}.image`, 'every service needs an image');
    const deploy = svc['deploy'];
    if (deploy !== undefined) {
      if (!isPlainObject(deploy)) add(`${at}.deploy`, 'must be a mapping');
      else
        for (const k of Object.keys(deploy))
          if (k !== 'resources') add(`${at}.deploy.${k}`, 'only deploy.resources is allowed');
    }
    const envFile = svc['env_file'];
    if (envFile !== undefined) {
      const list = Array.isArray(envFile) ? envFile : [envFile];
      if (!list.every((e) => e === '.env')) add(`${at}.env_file`, 'env_file may only name .env');
    }
    const own = (v: string) => v.startsWith('service:') && names.includes(v.slice(8));
    const nm = svc['network_mode'];
    if (nm !== undefined && !(typeof nm === 'string' && (['bridge', 'host', 'none'].includes(nm) || own(nm))))
      add(`${at}.network_mode`, 'must be bridge, host, none or service:<a service of this template>');
    const pid = svc['pid'];
    if (pid !== undefined && !(typeof pid === 'string' && (pid === 'host' || own(pid))))
      add(`${at}.pid`, 'must be host or service:<a service of this template>');
    const ipc = svc['ipc'];
    if (
      ipc !== undefined &&
      !(typeof ipc === 'string' && (['host', 'private', 'shareable'].includes(ipc) || own(ipc)))
    )
      add(`${at}.ipc`, 'must be host, private, shareable or service:<a service of this template>');
    const priv = svc['privileged'];
    if (priv !== undefined && typeof priv !== 'boolean') {
      const m = typeof priv === 'string' ? /^\$\{([A-Z][A-Z0-9_]*)\}$/.exec(priv) : null;
      if (!m || inputs.get(m[1]!)?.kind !== 'string')
        add(`${at}.privileged`, 'must be true, false or exactly ${NAME} of a string input');
    }
    checkMounts(svc['volumes'], `${at}.volumes`, inputs, volumes, add);
  }
  return names;
}

/** Splits `src:dst[:mode]` at the first ":" outside `${…}`. */
export function splitVolumeSource(entry: string): { source: string; rest: string } | null {
  let depth = 0;
  for (let i = 0; i < entry.length; i++) {
    if (entry[i] === '$' && entry[i + 1] === '{') depth++;
    else if (entry[i] === '}' && depth > 0) depth--;
    else if (entry[i] === ':' && depth === 0) return { source: entry.slice(0, i), rest: entry.slice(i + 1) };
  }
  return null;
}

const isBindLike = (src: string) => /^[/.~$]/.test(src);

function checkMounts(
  raw: unknown,
  at: string,
  inputs: Map<string, InputSpec>,
  declared: Record<string, unknown>,
  add: (p: string, m: string) => void,
): void {
  if (raw === undefined) return;
  if (!Array.isArray(raw)) {
    add(at, 'must be a list');
    return;
  }
  const bindOk = (src: string) => {
    if (src.startsWith('/')) return !src.includes('$');
    const m = /^\$\{([A-Z][A-Z0-9_]*)\}(\/.*)?$/.exec(src);
    return m !== null && inputs.get(m[1]!)?.kind === 'path';
  };
  raw.forEach((entry, i) => {
    const here = `${at}.${i}`;
    if (typeof entry === 'string') {
      const split = splitVolumeSource(entry);
      if (!split) return; // anonymous volume
      if (isBindLike(split.source)) {
        if (!bindOk(split.source))
          add(here, 'a bind-mount source is an absolute path or starts with ${NAME} of a path input');
      } else if (!(split.source in declared))
        add(here, `named volume "${split.source}" is not declared under top-level volumes`);
    } else if (isPlainObject(entry)) {
      const type = entry['type'];
      const src = entry['source'];
      if (type === 'bind') {
        if (typeof src !== 'string' || !bindOk(src))
          add(here, 'a bind-mount source is an absolute path or starts with ${NAME} of a path input');
      } else if (type === 'volume') {
        if (src !== undefined && !(typeof src === 'string' && src in declared))
          add(here, `named volume "${String(src)}" is not declared under top-level volumes`);
      } else if (type !== 'tmpfs') add(here, 'a volume entry has type bind, volume or tmpfs');
    } else add(here, 'a volume entry is a string or a mapping');
  });
}

/** Rule 4 and 5: every reference names an input; every non-device input is used; secrets only in environment. */
function checkReferences(
  data: Record<string, unknown>,
  inputs: Map<string, InputSpec>,
  add: (p: string, m: string) => void,
): void {
  const used = new Set<string>();
  const visitValue = (value: unknown, path: string[]) => {
    if (typeof value === 'string') {
      let names: string[] = [];
      try {
        names = tokenize(value).flatMap((p) => {
          if (p.kind !== 'ref') return [];
          if (p.op === ':?' || p.op === '?')
            throw new OutsideSubset(`"\${${p.name}${p.op}…}" is not allowed in a template`);
          return [p.name];
        });
      } catch (e) {
        if (!(e instanceof OutsideSubset)) throw e;
        add(path.join('.'), `${e.message} (only $NAME, \${NAME}, \${NAME:-text}, \${NAME-text} and $$)`);
        return;
      }
      const inXService = path[0] === 'x-service';
      const inEnvironment = path[0] === 'services' && path[2] === 'environment' && path.length >= 4;
      for (const name of names) {
        const spec = inputs.get(name);
        if (!spec) {
          add(path.join('.'), `$${name} is not a declared input`);
          continue;
        }
        if (spec.kind === 'secret' && !inEnvironment)
          add(path.join('.'), `the secret ${name} may only be used in services.*.environment values`);
        if (!inXService || (path[1] === 'webui' && path.length === 2)) used.add(name);
      }
      return;
    }
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) visitValue(v, [...path, String(i)]);
    } else if (isPlainObject(value))
      for (const [k, v] of Object.entries(value)) {
        if (k.includes('$')) {
          try {
            for (const n of tokenize(k).flatMap((p) => (p.kind === 'ref' ? [p.name] : [])))
              if (!inputs.has(n)) add([...path, k].join('.'), `$${n} is not a declared input`);
          } catch {
            add([...path, k].join('.'), 'a key holds an unsupported "$" reference');
          }
        }
        visitValue(v, [...path, k]);
      }
  };
  visitValue(data, []);
  const services = isPlainObject(data['services']) ? data['services'] : {};
  const viaEnvFile = Object.values(services).some((s) => {
    const ef = isPlainObject(s) ? s['env_file'] : undefined;
    return ef === '.env' || (Array.isArray(ef) && ef.includes('.env'));
  });
  for (const [name, spec] of inputs) {
    if (spec.kind === 'device' || viaEnvFile || used.has(name)) continue;
    add(`x-service.inputs.${name}`, 'the input is never used in the Compose part or in webui');
  }
}
