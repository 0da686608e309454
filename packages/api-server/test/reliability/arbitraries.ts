/**
 * fast-check arbitraries of the fuzz suite: hostile strings, path segments (percent-encoded,
 * plus raw encoded-traversal segments), random JSON bodies, and bodies shaped from a route's
 * valibot schema (so the fuzz also reaches the handlers, not only the validator).
 */
import fc from 'fast-check';

/** Hand-written hostile strings: traversal, encoded traversal, NUL, overlong, unicode, injections, edges. */
export const HOSTILE_STRINGS: string[] = [
  '',
  ' ',
  '.',
  '..',
  '../',
  '../../etc/passwd',
  '../../../../../../../../etc/shadow',
  '..\\..\\windows',
  '/etc/passwd',
  '/',
  '//',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%2f..%2f',
  '%252e%252e%252f',
  '..%c0%af..%c0%af',
  'a\u0000b',
  '\u0000',
  'x'.repeat(300),
  'y'.repeat(5000),
  'z'.repeat(70_000),
  'ñandú',
  '😀',
  '\u202etxt.exe',
  '\ud800',
  '\ufeff',
  'ＡＢＣ',
  'İstanbul',
  'a/b',
  'a b',
  'a\nb',
  'a\r\nX-Injected: 1',
  '$(reboot)',
  '`id`',
  '; rm -rf /',
  '| cat /etc/shadow',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '%',
  '%%',
  '%zz',
  '-1',
  '0',
  '-0',
  '1e309',
  'NaN',
  'Infinity',
  '9007199254740993',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'prototype',
  'CON',
  'builtin',
  'jellyfin',
  'disk_offline',
  'admin',
  'media',
  '3f2a6c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b',
  '00000000-0000-0000-0000-000000000000',
  'apat_0000000000000000000000000000000000000000000000000000000000000000',
  'http://127.0.0.1:1/',
  'file:///etc/passwd',
  '${HOME}',
  '{{7*7}}',
];

/** Raw path segments sent without further encoding (encoded traversal must reach the router as-is). */
export const RAW_SEGMENTS: string[] = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%2f..%2fetc%2fpasswd',
  '..%5c..%5c',
  '%00',
  'a%00b',
  '%ff%fe',
  '%c0%ae%c0%ae',
  '%252e%252e',
  '%e2%80%ae',
  '%',
  '%zz',
];

/**
 * Every spelling of a dot segment the URL parser resolves (issue 18): `.`/`%2e` and
 * `..`/`.%2e`/`%2e.`/`%2e%2e`, the escape in either case. Sent raw as a whole path segment.
 */
export const DOT_SEGMENTS: readonly string[] = (() => {
  const dot = ['.', '%2e', '%2E'];
  return [...dot, ...dot.flatMap((a) => dot.map((b) => a + b))];
})();

/** One dot segment spelling. */
export const dotSegment = (): fc.Arbitrary<string> => fc.constantFrom(...DOT_SEGMENTS);

/** Whether a raw path segment is one of `DOT_SEGMENTS`. */
export const isDotSpelling = (seg: string): boolean => DOT_SEGMENTS.includes(seg);

export const NUMBER_EDGES: number[] = [
  0,
  -0,
  -1,
  1,
  0.5,
  59,
  60,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  1e308,
  -1e308,
  Number.MIN_VALUE,
];

export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,70}$/) },
  );

/** Percent-encodes every byte of the UTF-8 form except RFC 3986 unreserved characters. */
export function encodeSegment(value: string): string {
  let out = '';
  for (const b of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(b);
    out += /[A-Za-z0-9._~-]/.test(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A path segment as it goes on the wire. */
export const pathSegment = (): fc.Arbitrary<string> =>
  fc.oneof(
    // Node's HTTP parser refuses request heads over 16 KiB (431) before the app: see fuzz.test.ts.
    { weight: 5, arbitrary: hostileString().map((x) => encodeSegment(x).slice(0, 4000)) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    { weight: 1, arbitrary: dotSegment() },
  );

const jsonNumber = () =>
  fc.oneof(
    fc.constantFrom(...NUMBER_EDGES),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );

/** JSON-representable values (fc.anything-derived: objects of any shape, hostile keys). */
export const jsonValue = (): fc.Arbitrary<unknown> =>
  fc.anything({
    maxDepth: 3,
    maxKeys: 6,
    key: fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('__proto__', 'constructor', 'name', 'id', 'role'),
    ),
    values: [hostileString(), jsonNumber(), fc.boolean(), fc.constant(null)],
  });

// biome-ignore lint/suspicious/noExplicitAny: walks valibot schema objects of every kind
type AnySchema = any;

/**
 * Values shaped like a valibot schema (type-correct skeletons with hostile leaves), so requests
 * get past the validator into the handlers. Unknown kinds fall back to random JSON.
 */
export function fromSchema(schema: AnySchema, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return jsonValue();
  switch (schema.type as string) {
    case 'string':
      return hostileString();
    case 'number':
      return jsonNumber();
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'literal':
      return fc.constant(schema.literal);
    case 'picklist':
    case 'enum':
      return fc.constantFrom(...(schema.options as unknown[]));
    case 'optional':
    case 'exact_optional':
    case 'undefinedable':
      return fc.option(fromSchema(schema.wrapped, depth + 1), { nil: undefined });
    case 'nullable':
    case 'nullish':
      return fc.option(fromSchema(schema.wrapped, depth + 1), { nil: null });
    case 'array':
      return fc.array(fromSchema(schema.item, depth + 1), { maxLength: 4 });
    case 'record':
      return fc.dictionary(hostileString(), fromSchema(schema.value, depth + 1) as fc.Arbitrary<unknown>, {
        maxKeys: 4,
      });
    case 'union':
    case 'variant':
      return fc.oneof(...(schema.options as AnySchema[]).map((o) => fromSchema(o, depth + 1)));
    case 'object':
    case 'strict_object':
    case 'loose_object': {
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, sub] of Object.entries(schema.entries as Record<string, AnySchema>))
        model[k] = fromSchema(sub, depth + 1);
      return fc
        .record(model, { requiredKeys: [] })
        .map((o) => Object.fromEntries(Object.entries(o).filter(([, val]) => val !== undefined)));
    }
    default:
      return jsonValue();
  }
}

/** A request body for a JSON route: schema-shaped, random JSON objects, non-objects, or `{}`. */
export const jsonBody = (schema: AnySchema): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: fromSchema(schema) },
    { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), jsonValue(), { maxKeys: 6 }) },
    { weight: 1, arbitrary: jsonValue() },
    { weight: 1, arbitrary: fc.constant({}) },
  );

/** Bodies that are not JSON at all, with the headers they come with. */
export const BROKEN_BODIES: Array<{
  label: string;
  raw: string | Uint8Array;
  contentType?: string;
  chunked?: boolean;
}> = [
  { label: 'truncated JSON', raw: '{"a":', contentType: 'application/json' },
  { label: 'not JSON', raw: 'hello', contentType: 'application/json' },
  {
    label: 'invalid UTF-8',
    raw: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    contentType: 'application/json',
  },
  { label: 'wrong content type', raw: '{}', contentType: 'text/plain' },
  { label: 'no content type', raw: '{}' },
  { label: 'JSON array', raw: '[]', contentType: 'application/json' },
  { label: 'JSON string', raw: '"x"', contentType: 'application/json' },
  { label: 'deep nesting', raw: `${'['.repeat(5000)}${']'.repeat(5000)}`, contentType: 'application/json' },
  { label: 'huge number', raw: '{"n": 1e999999}', contentType: 'application/json' },
  { label: 'duplicate keys', raw: '{"role":"viewer","role":"admin"}', contentType: 'application/json' },
  { label: 'NUL in JSON', raw: '{"name":"a\\u0000b"}', contentType: 'application/json' },
  { label: 'over 64 KiB', raw: `{"x":"${'a'.repeat(70 * 1024)}"}`, contentType: 'application/json' },
  {
    label: 'over 64 KiB, chunked',
    raw: `{"x":"${'a'.repeat(70 * 1024)}"}`,
    contentType: 'application/json',
    chunked: true,
  },
];
