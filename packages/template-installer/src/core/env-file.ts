/** The stack `.env` file: exact encoding (02 §11.3) and the in-process reading subset (§6.1). */
import { OutsideSubset } from './interpolate.ts';
import { byteOrder, ENV_NAME } from './names.ts';

export type ComposeFlavour = 'v1' | 'v2';

const BARE = /^[A-Za-z0-9_./:@%+,=-]*$/;

/** One value as written to `.env`: bare when safe, else double-quoted with `\\`, `\"`, `\$`. */
export function encodeEnvValue(value: string): string {
  if (BARE.test(value)) return value;
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('$', '\\$')}"`;
}

/** `NAME=<encoded>\n` for every entry, byte order of name, nothing else. */
export function encodeEnvFile(values: Record<string, string>): string {
  return Object.keys(values)
    .sort(byteOrder)
    .map((name) => `${name}=${encodeEnvValue(values[name]!)}\n`)
    .join('');
}

/**
 * Reads a `.env` written in the §11.3 forms (plus blank and `#` lines). Anything else throws
 * OutsideSubset so the caller asks the compose tool instead. With v1 any `$` is outside the subset
 * (v1 expands it as a reference).
 */
export function parseEnvFile(text: string, flavour: ComposeFlavour): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 1) throw new OutsideSubset(`.env line ${JSON.stringify(line)} is not NAME=value`);
    const name = line.slice(0, eq);
    const raw = line.slice(eq + 1);
    if (!ENV_NAME.test(name))
      throw new OutsideSubset(`.env name ${JSON.stringify(name)} is outside the subset`);
    if (out.has(name)) throw new OutsideSubset(`.env sets ${name} twice`);
    out.set(name, decodeValue(raw, flavour));
  }
  return out;
}

function decodeValue(raw: string, flavour: ComposeFlavour): string {
  if (BARE.test(raw)) return raw;
  if (!(raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"'))) {
    throw new OutsideSubset('a .env value that is neither bare nor double-quoted');
  }
  if (flavour === 'v1' && raw.includes('$')) throw new OutsideSubset('docker-compose v1 expands "$" in .env');
  let out = '';
  const body = raw.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === '\\') {
      const next = body[i + 1];
      if (next === '\\' || next === '"' || (next === '$' && flavour === 'v2')) {
        out += next;
        i++;
        continue;
      }
      throw new OutsideSubset('a .env escape outside \\\\, \\" and \\$');
    }
    if (ch === '"' || ch === '$' || ch === '\r')
      throw new OutsideSubset(`a raw ${JSON.stringify(ch)} in a quoted .env value`);
    out += ch;
  }
  return out;
}
