import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { arrayInPlaceOfObject } from './json-objects.ts';

const issue = (path: string) => ({ path, message: 'must be a JSON object, not an array' });

describe('arrayInPlaceOfObject', () => {
  it('names an array where an object or a record is expected, at any depth', () => {
    const schema = v.strictObject({
      values: v.optional(v.record(v.string(), v.string())),
      smb: v.optional(v.strictObject({ enabled: v.optional(v.boolean()) })),
      grants: v.optional(v.array(v.strictObject({ id: v.optional(v.string()) }))),
      nested: v.optional(v.nullable(v.object({ inner: v.optional(v.record(v.string(), v.unknown())) }))),
    });
    // valibot itself accepts all of these
    for (const input of [{ values: [] }, { smb: [] }, { grants: [[]] }, { nested: { inner: [] } }])
      expect(v.is(schema, input)).toBe(true);
    expect(arrayInPlaceOfObject(schema, { values: [] })).toEqual(issue('values'));
    expect(arrayInPlaceOfObject(schema, { smb: [] })).toEqual(issue('smb'));
    expect(arrayInPlaceOfObject(schema, { grants: [{ id: 'a' }, []] })).toEqual(issue('grants.1'));
    expect(arrayInPlaceOfObject(schema, { nested: { inner: [] } })).toEqual(issue('nested.inner'));
    expect(arrayInPlaceOfObject(schema, [])).toEqual(issue(''));
    expect(arrayInPlaceOfObject(schema, { values: {}, smb: {}, grants: [], nested: null })).toBeNull();
  });

  it('follows the later schemas of a pipe and the option a variant selects, never a union', () => {
    const piped = v.pipe(v.array(v.unknown()), v.maxLength(3), v.array(v.record(v.string(), v.string())));
    expect(arrayInPlaceOfObject(piped, [{}, []])).toEqual(issue('1'));
    const variant = v.variant('type', [
      v.strictObject({ type: v.literal('a'), headers: v.optional(v.record(v.string(), v.string())) }),
      v.strictObject({ type: v.literal('b'), list: v.optional(v.array(v.string())) }),
    ]);
    expect(arrayInPlaceOfObject(variant, { type: 'a', headers: [] })).toEqual(issue('headers'));
    expect(arrayInPlaceOfObject(variant, { type: 'b', list: [] })).toBeNull();
    const union = v.union([v.array(v.string()), v.record(v.string(), v.string())]);
    expect(arrayInPlaceOfObject(v.object({ u: union }), { u: [] })).toBeNull();
  });
});
