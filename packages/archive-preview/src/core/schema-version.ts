/**
 * Schema versions (00 §4, 01 §1.4): the identifier of the newest applied migration, totally
 * ordered by the migration's timestamp (drizzle's `created_at`, the journal's `when`).
 */
export interface SchemaVersion {
  /** The migration's name (its journal tag, e.g. `0017_share_quotas`). */
  id: string;
  /** The order key: a newer migration always has a larger value. */
  order: number;
}

export type VersionRelation = 'equal' | 'older' | 'newer';

/** How the archive's version relates to the live one. */
export function relateVersions(archive: SchemaVersion, live: SchemaVersion): VersionRelation {
  if (archive.order === live.order && archive.id === live.id) return 'equal';
  return archive.order > live.order ? 'newer' : 'older';
}
