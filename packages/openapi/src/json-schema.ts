/** A valibot schema as JSON Schema (draft 2020-12), for an OpenAPI document. */
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';

export type Json = Record<string, unknown>;

/** `input`: what a request may send (before transforms); `output`: what an answer holds. */
export const schemaOf = (schema: v.GenericSchema, mode: 'input' | 'output'): Json =>
  toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: mode,
    errorMode: 'ignore',
    // An object's properties that are such pipes get their items documented (the converter calls
    // no override for a pipe itself, and documents only a pipe's first schema in input mode).
    overrideSchema: ({ valibotSchema, jsonSchema }) => {
      const entries = (valibotSchema as { entries?: Record<string, unknown> }).entries;
      const properties = (jsonSchema as Json)['properties'] as Record<string, Json> | undefined;
      if (!entries || !properties) return undefined;
      for (const [key, entry] of Object.entries(entries)) {
        const items = laterArrayItems(entry);
        if (!items || !properties[key]) continue;
        const { $schema: _, ...itemSchema } = schemaOf(items, mode);
        properties[key] = { ...properties[key], items: itemSchema };
      }
      return jsonSchema;
    },
  }) as Json;

/**
 * The item schema of a pipe that checks an array's size before its items (`v.pipe(v.array(v.unknown()),
 * v.maxLength(n), v.array(item))`, so that a huge array is one issue): the converter documents only
 * the first schema of a pipe, which would leave the items `{}`.
 */
export function laterArrayItems(schema: unknown): v.GenericSchema | null {
  const pipe = (schema as { pipe?: unknown[] }).pipe;
  if (!Array.isArray(pipe)) return null;
  const later = pipe
    .slice(1)
    .find(
      (p) =>
        (p as { kind?: string; type?: string }).kind === 'schema' &&
        (p as { type?: string }).type === 'array',
    );
  return (later as { item?: v.GenericSchema } | undefined)?.item ?? null;
}
