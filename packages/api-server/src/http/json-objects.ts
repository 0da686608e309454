/**
 * JSON arrays sent where a body schema expects an object (issue 25: `values: []` installed a stack).
 *
 * valibot's `object`, `strictObject` and `record` accept any non-null `typeof 'object'`, arrays
 * included: `[]` passed as an empty record, and as an object whose fields are all optional. This
 * walks a parsed body beside its schema and names the first array that stands where an object or
 * a record is expected, at any depth. It follows the schema's structure only: wrappers (optional,
 * nullable, …), object entries, record values, array items, the later schemas of a pipe, and the
 * option of a `variant` its discriminator selects; a plain `union` is not entered (either side may
 * accept an array).
 */
import type { ValidationIssue } from '@appliance/common';
import * as v from 'valibot';

interface SchemaNode {
  type?: string;
  kind?: string;
  wrapped?: SchemaNode;
  entries?: Record<string, SchemaNode>;
  item?: SchemaNode;
  value?: SchemaNode;
  key?: string;
  options?: SchemaNode[];
  pipe?: SchemaNode[];
}

const OBJECTS = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest', 'record']);
const WRAPPERS = new Set([
  'optional',
  'exact_optional',
  'nullable',
  'nullish',
  'undefinedable',
  'non_optional',
  'non_nullable',
  'non_nullish',
]);

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

const join = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${key}`);

/** The first array standing where `schema` expects an object or a record, or `null`. */
export function arrayInPlaceOfObject(schema: unknown, input: unknown, path = ''): ValidationIssue | null {
  const node = schema as SchemaNode;
  for (const later of node.pipe?.slice(1) ?? []) {
    if (later.kind !== 'schema') continue;
    const found = arrayInPlaceOfObject(later, input, path);
    if (found) return found;
  }
  const type = node.type ?? '';
  if (WRAPPERS.has(type)) {
    return input === undefined || input === null ? null : arrayInPlaceOfObject(node.wrapped, input, path);
  }
  if (OBJECTS.has(type)) {
    if (Array.isArray(input)) return { path, message: 'must be a JSON object, not an array' };
    if (!isPlainObject(input)) return null;
    if (type === 'record') {
      for (const [key, value] of Object.entries(input)) {
        const found = arrayInPlaceOfObject(node.value, value, join(path, key));
        if (found) return found;
      }
      return null;
    }
    for (const [key, child] of Object.entries(node.entries ?? {})) {
      if (!Object.hasOwn(input, key)) continue;
      const found = arrayInPlaceOfObject(child, input[key], join(path, key));
      if (found) return found;
    }
    return null;
  }
  if (type === 'array' && Array.isArray(input)) {
    for (let i = 0; i < input.length; i++) {
      const found = arrayInPlaceOfObject(node.item, input[i], join(path, i));
      if (found) return found;
    }
    return null;
  }
  if (type === 'variant' && node.key !== undefined) {
    if (Array.isArray(input)) return { path, message: 'must be a JSON object, not an array' };
    if (!isPlainObject(input)) return null;
    const key = node.key;
    const option = node.options?.find((o) => {
      const discriminator = o.entries?.[key];
      return discriminator !== undefined && v.is(discriminator as v.GenericSchema, input[key]);
    });
    return option ? arrayInPlaceOfObject(option, input, path) : null;
  }
  return null;
}
