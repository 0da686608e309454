/**
 * Ports an existing stack publishes, read in-process from its `docker-compose.yml` and `.env`
 * bytes with the compose tool's rules (02 §6.1). Anything outside the subset throws
 * OutsideSubset so the caller runs the tool instead.
 */
import { type ComposeFlavour, parseEnvFile } from './env-file.ts';
import { OutsideSubset, substituteTree } from './interpolate.ts';
import { publishedPorts } from './ports.ts';
import { isPlainObject, parseComposeYaml, YamlProblem } from './yaml-doc.ts';
import { yaml } from './yaml-lib.ts';

export interface StackFiles {
  compose: string;
  env: string;
}

/** PyYAML (v1) reads an unquoted `2222:22` as a base-60 integer. */
const SEXAGESIMAL = /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/;

const ALLOWED_TOP = new Set(['services', 'volumes', 'networks', 'secrets', 'configs', 'name', 'version']);

/**
 * Host ports published by a stack. `environ` is the compose tool's own environment (02 §11.4),
 * which wins over `.env`. Throws OutsideSubset (→ fallback) or YamlProblem / BadPort /
 * RequiredVariableMissing (→ the stack is unreadable).
 */
export function stackPorts(
  files: StackFiles,
  flavour: ComposeFlavour,
  environ: Readonly<Record<string, string>>,
): number[] {
  let parsed: ReturnType<typeof parseComposeYaml>;
  try {
    parsed = parseComposeYaml(files.compose);
  } catch (e) {
    // Several documents and tags are outside the subset; the tool decides.
    if (e instanceof YamlProblem && /more than one|tags/.test(e.message)) throw new OutsideSubset(e.message);
    throw e;
  }
  const { doc, data } = parsed;
  if (!isPlainObject(data)) throw new YamlProblem('the Compose file is not a mapping');
  for (const key of Object.keys(data)) {
    if (!ALLOWED_TOP.has(key) && !key.startsWith('x-')) throw new OutsideSubset(`top-level ${key}`);
  }
  const services = isPlainObject(data['services']) ? data['services'] : {};
  for (const svc of Object.values(services)) {
    if (isPlainObject(svc) && 'extends' in svc) throw new OutsideSubset('extends');
  }
  if (flavour === 'v1') {
    // Plain port scalars YAML 1.1 would read as numbers.
    const { isScalar, isSeq, visit } = yaml();
    visit(doc, {
      Pair(_k, pair) {
        if (isScalar(pair.key) && pair.key.value === 'ports' && isSeq(pair.value)) {
          for (const item of pair.value.items) {
            if (
              isScalar(item) &&
              item.type === 'PLAIN' &&
              typeof item.source === 'string' &&
              SEXAGESIMAL.test(item.source)
            )
              throw new OutsideSubset(`${item.source} reads as a base-60 number in docker-compose v1`);
          }
        }
      },
    });
  }
  const env = parseEnvFile(files.env, flavour);
  if (flavour === 'v1') {
    // v1 refuses a long-syntax `published` range; let the tool say so.
    for (const svc of Object.values(services)) {
      const ports = isPlainObject(svc) && Array.isArray(svc['ports']) ? svc['ports'] : [];
      for (const p of ports)
        if (isPlainObject(p) && typeof p['published'] === 'string' && p['published'].includes('-'))
          throw new OutsideSubset('a published range in the long syntax');
    }
  }
  const lookup = (name: string) => (Object.hasOwn(environ, name) ? environ[name] : env.get(name));
  const model = substituteTree({ services: data['services'] }, lookup);
  return publishedPorts(model);
}
