/** The canonical plan digest (02 §9): SHA-256 of the JCS form of the confirmed parts. */
import { createHash } from 'node:crypto';
import type { Privilege } from './privileges.ts';

export interface DigestInput {
  compose: string;
  id: string;
  privileges: readonly Privilege[];
  revision: number;
  source: string;
}

/**
 * JSON.stringify of objects built with sorted keys is RFC 8785 for these values (strings and an
 * integer only), so no canonicalisation library is needed.
 */
export function canonicalPlanJson(input: DigestInput): string {
  const privileges = input.privileges.map((p) =>
    p.detail === undefined
      ? { description: p.description, kind: p.kind, service: p.service }
      : { description: p.description, detail: p.detail, kind: p.kind, service: p.service },
  );
  return JSON.stringify({
    compose: input.compose,
    id: input.id,
    privileges,
    revision: input.revision,
    source: input.source,
  });
}

export function planDigest(input: DigestInput): string {
  return createHash('sha256').update(canonicalPlanJson(input), 'utf8').digest('hex');
}
