/** Compose YAML: one document, anchors/aliases/merges allowed, no tags (02 §1.2). */
import type { Document } from 'yaml';
import { yaml } from './yaml-lib.ts';

export interface ParsedYaml {
  doc: Document.Parsed;
  /** Plain data with merges applied. */
  data: unknown;
}

export class YamlProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlProblem';
  }
}

export const YAML_OPTIONS = { merge: true, uniqueKeys: true, prettyErrors: false } as const;

/** Parses one Compose document or throws YamlProblem saying why it cannot be used. */
export function parseComposeYaml(text: string): ParsedYaml {
  const { isCollection, isNode, isScalar, parseAllDocuments, visit } = yaml();
  const docs = parseAllDocuments(text, YAML_OPTIONS);
  const list = Array.isArray(docs) ? docs : [];
  if (list.length === 0) throw new YamlProblem('the file holds no YAML document');
  if (list.length > 1) throw new YamlProblem('the file holds more than one YAML document');
  const doc = list[0]!;
  const err = doc.errors[0];
  if (err) throw new YamlProblem(`YAML error: ${err.message.split('\n')[0]}`);
  let tagged: string | undefined;
  visit(doc, (_key, node) => {
    if (isNode(node) && node.tag !== undefined && (isScalar(node) || isCollection(node))) {
      tagged = node.tag;
      return visit.BREAK;
    }
    return undefined;
  });
  if (tagged !== undefined) throw new YamlProblem(`YAML tags are not allowed (found ${tagged})`);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 10_000 });
  } catch (e) {
    throw new YamlProblem(`YAML error: ${(e as Error).message}`);
  }
  return { doc, data };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
