/** Assembles the preview response (01 §4.3) from the decisions of the other core modules. */
import type { BareMetal } from './bare-metal.ts';
import type { Blocker } from './blockers.ts';
import type { Changes, Item } from './db-groups.ts';
import type { Manifest } from './manifest.ts';
import type { Note } from './notes.ts';
import { CATEGORIES, type Category } from './registry.ts';
import type { SchemaVersion } from './schema-version.ts';
import type { SecretsReport } from './secrets.ts';

export interface Group {
  category: Category;
  added: Item[];
  changed: Item[];
  removed: Item[];
}

export interface PreviewResponse {
  archive: { createdAt: string; hostname: string; appVersion: string; schemaVersion: string };
  liveSchemaVersion: string;
  blockers: Blocker[];
  groups: Group[];
  secrets: SecretsReport;
  notes: Note[];
  bareMetal?: BareMetal;
}

/** The 7 groups in order, or `[]` when `changes` is null (the schema versions differ). */
export function groupsOf(changes: ReadonlyMap<Category, Changes> | null): Group[] {
  if (changes === null) return [];
  return CATEGORIES.map((category) => {
    const c = changes.get(category) ?? { added: [], changed: [], removed: [] };
    return { category, added: c.added, changed: c.changed, removed: c.removed };
  });
}

export function assemblePreview(input: {
  manifest: Manifest;
  archiveVersion: SchemaVersion;
  liveVersion: SchemaVersion;
  blockers: Blocker[];
  changes: ReadonlyMap<Category, Changes> | null;
  secrets: SecretsReport;
  notes: Note[];
  bareMetal: BareMetal | undefined;
}): PreviewResponse {
  const m = input.manifest;
  return {
    archive: {
      createdAt: m.createdAt,
      hostname: m.hostname,
      appVersion: m.appVersion,
      schemaVersion: input.archiveVersion.id,
    },
    liveSchemaVersion: input.liveVersion.id,
    blockers: input.blockers,
    groups: groupsOf(input.changes),
    secrets: input.secrets,
    notes: input.notes,
    ...(input.bareMetal ? { bareMetal: input.bareMetal } : {}),
  };
}
