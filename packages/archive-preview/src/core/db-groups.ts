/**
 * Database groups (01 §4.6): rows matched by key; archive only → added, live only → removed,
 * both → changed when a compared column differs. Pure.
 */
import { compareCodePoints } from './codepoint.ts';
import {
  COMPARED,
  type ComparedTable,
  type DbRows,
  isComparedColumn,
  type Kind,
  type Lookup,
  type Row,
  type SqlValue,
} from './registry.ts';

export interface Item {
  kind: Kind;
  name: string;
}

export interface Changes {
  added: Item[];
  changed: Item[];
  removed: Item[];
}

/** Type-and-value equality: NULL ≠ '' ≠ 0, INTEGER 1 ≠ TEXT '1' ≠ REAL 1.0, BLOBs byte for byte. */
export function sameValue(a: SqlValue | undefined, b: SqlValue | undefined): boolean {
  const av = a ?? null;
  const bv = b ?? null;
  if (av === null || bv === null) return av === bv;
  if (av instanceof Uint8Array || bv instanceof Uint8Array) {
    return av instanceof Uint8Array && bv instanceof Uint8Array && Buffer.from(av).equals(Buffer.from(bv));
  }
  if (typeof av !== typeof bv) return false;
  if (typeof av === 'number' && typeof bv === 'number' && Number.isNaN(av) && Number.isNaN(bv)) return true;
  return av === bv;
}

/** A stable text for a key tuple (type-tagged, so 1 and '1' stay apart). */
function keyOf(row: Row, key: readonly string[]): string {
  return JSON.stringify(
    key.map((column) => {
      const value = row[column] ?? null;
      if (value === null) return ['n'];
      if (value instanceof Uint8Array) return ['b', Buffer.from(value).toString('hex')];
      if (typeof value === 'bigint') return ['i', value.toString()];
      return [typeof value === 'number' ? 'r' : 's', value];
    }),
  );
}

export function lookupFor(rows: DbRows): Lookup {
  const index = (table: string, keyColumn: string, nameColumn: string) => {
    const map = new Map<string, string>();
    for (const row of rows[table] ?? []) map.set(keyOf(row, [keyColumn]), String(row[nameColumn] ?? ''));
    return (id: SqlValue) => map.get(keyOf({ id }, ['id'])) ?? (id === null ? '' : String(id));
  };
  return {
    username: index('users', 'id', 'username'),
    groupName: index('user_groups', 'id', 'name'),
    channelName: index('notify_channels', 'id', 'name'),
  };
}

interface Named {
  name: string;
  key: string;
}
const byNameThenKey = (a: Named, b: Named) =>
  compareCodePoints(a.name, b.name) || compareCodePoints(a.key, b.key);

function compareTable(entry: ComparedTable, archive: DbRows, live: DbRows, la: Lookup, ll: Lookup): Changes {
  const archiveRows = new Map((archive[entry.table] ?? []).map((r) => [keyOf(r, entry.key), r]));
  const liveRows = new Map((live[entry.table] ?? []).map((r) => [keyOf(r, entry.key), r]));
  const added: Named[] = [];
  const changed: Named[] = [];
  const removed: Named[] = [];
  for (const [key, row] of archiveRows) {
    const other = liveRows.get(key);
    if (other === undefined) added.push({ name: entry.label(row, la), key });
    else if (rowDiffers(entry, row, other)) changed.push({ name: entry.label(row, la), key });
  }
  for (const [key, row] of liveRows) {
    if (!archiveRows.has(key)) removed.push({ name: entry.label(row, ll), key });
  }
  const items = (list: Named[]) => list.sort(byNameThenKey).map((n) => ({ kind: entry.kind, name: n.name }));
  return { added: items(added), changed: items(changed), removed: items(removed) };
}

function rowDiffers(entry: ComparedTable, a: Row, b: Row): boolean {
  const columns = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const column of columns) {
    if (!isComparedColumn(entry, column)) continue;
    if (!sameValue(a[column], b[column])) return true;
  }
  return false;
}

/** The database part of the four database categories, table by table in registry order. */
export function compareDatabases(archive: DbRows, live: DbRows): Map<string, Changes> {
  const la = lookupFor(archive);
  const ll = lookupFor(live);
  const out = new Map<string, Changes>();
  for (const entry of COMPARED) {
    const changes = compareTable(entry, archive, live, la, ll);
    const group = out.get(entry.category) ?? { added: [], changed: [], removed: [] };
    group.added.push(...changes.added);
    group.changed.push(...changes.changed);
    group.removed.push(...changes.removed);
    out.set(entry.category, group);
  }
  return out;
}
