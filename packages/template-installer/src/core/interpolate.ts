/**
 * Compose variable substitution, implemented once (02 §1.2 rule 4, §6.1). Used to lint
 * templates, to substitute plan values (privileges), and to read existing stacks' ports.
 */

export type InterpolationOp = '' | ':-' | '-' | ':?' | '?';

export type Part =
  | { kind: 'text'; text: string }
  | { kind: 'ref'; name: string; op: InterpolationOp; arg: string; braced: boolean };

/** A string the in-process subset cannot read (the tool may, or may refuse it). */
export class OutsideSubset extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutsideSubset';
  }
}

/** A `${NAME?err}` / `${NAME:?err}` whose variable is unset (or empty): the tool fails too. */
export class RequiredVariableMissing extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(message);
    this.name = 'RequiredVariableMissing';
    this.variable = variable;
  }
}

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;

/**
 * Splits a string into literal text and references. Throws OutsideSubset for anything other
 * than `$NAME`, `${NAME}`, `${NAME:-d}`, `${NAME-d}`, `${NAME:?e}`, `${NAME?e}` and `$$`
 * (the argument holding neither `$` nor `}`).
 */
export function tokenize(input: string): Part[] {
  const parts: Part[] = [];
  let text = '';
  let i = 0;
  const flush = () => {
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
  };
  while (i < input.length) {
    const ch = input[i]!;
    if (ch !== '$') {
      text += ch;
      i++;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      text += '$';
      i += 2;
      continue;
    }
    if (next !== undefined && NAME_START.test(next)) {
      let j = i + 1;
      while (j < input.length && NAME_CHAR.test(input[j]!)) j++;
      flush();
      parts.push({ kind: 'ref', name: input.slice(i + 1, j), op: '', arg: '', braced: false });
      i = j;
      continue;
    }
    if (next === '{') {
      const close = input.indexOf('}', i + 2);
      if (close < 0) throw new OutsideSubset(`unterminated "\${" in ${JSON.stringify(input)}`);
      const body = input.slice(i + 2, close);
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:-|-|:\?|\?)(.*))?$/s.exec(body);
      if (!m) throw new OutsideSubset(`"\${${body}}" is not a supported variable reference`);
      const arg = m[3] ?? '';
      if (arg.includes('$')) throw new OutsideSubset(`"\${${body}}" nests a reference in its default`);
      flush();
      parts.push({ kind: 'ref', name: m[1]!, op: (m[2] ?? '') as InterpolationOp, arg, braced: true });
      i = close + 1;
      continue;
    }
    throw new OutsideSubset(
      `a "$" not followed by a variable name in ${JSON.stringify(input)}; write "$$" for a literal "$"`,
    );
  }
  flush();
  return parts;
}

/** The names a string references (throws OutsideSubset like tokenize). */
export function referencedNames(input: string): string[] {
  return tokenize(input).flatMap((p) => (p.kind === 'ref' ? [p.name] : []));
}

export type Lookup = (name: string) => string | undefined;

/** Substitutes one string as the compose tool does; unset variables read as "". */
export function substitute(input: string, lookup: Lookup): string {
  if (!input.includes('$')) return input;
  let out = '';
  for (const part of tokenize(input)) {
    if (part.kind === 'text') {
      out += part.text;
      continue;
    }
    const value = lookup(part.name);
    switch (part.op) {
      case '':
        out += value ?? '';
        break;
      case ':-':
        out += value === undefined || value === '' ? part.arg : value;
        break;
      case '-':
        out += value === undefined ? part.arg : value;
        break;
      case ':?':
        if (value === undefined || value === '') throw new RequiredVariableMissing(part.name, part.arg);
        out += value;
        break;
      case '?':
        if (value === undefined) throw new RequiredVariableMissing(part.name, part.arg);
        out += value;
        break;
    }
  }
  return out;
}

/** Substitutes every string value (not keys) of a plain JSON-like tree. */
export function substituteTree(value: unknown, lookup: Lookup): unknown {
  if (typeof value === 'string') return substitute(value, lookup);
  if (Array.isArray(value)) return value.map((v) => substituteTree(v, lookup));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteTree(v, lookup);
    return out;
  }
  return value;
}

/** `$` → `$$`, so a literal survives substitution. */
export const escapeDollars = (s: string): string => s.replaceAll('$', '$$');
