/**
 * The identity columns `array_disks` and `external_disks` share (db/tables/disks.ts), row ↔ record:
 * `weak_identity` is 0/1 in a row, a boolean in a record. Each table keeps its own nullability (an
 * external disk may have no filesystem yet), so the types follow the row or the record given.
 */
const COLUMNS = [
  'device',
  'filesystem',
  'fsUuid',
  'wwn',
  'serial',
  'byIdName',
  'weakIdentity',
  'sizeBytes',
] as const;
type Column = (typeof COLUMNS)[number];
type Identity<T extends Record<Column, unknown>, Weak> = Omit<Pick<T, Column>, 'weakIdentity'> & {
  weakIdentity: Weak;
};

/** The identity columns of `source`, in their column order. */
const pick = <T extends Record<Column, unknown>>(source: T) =>
  Object.fromEntries(COLUMNS.map((c) => [c, source[c]])) as Pick<T, Column>;

/** Row → record: the identity columns, `weakIdentity` a boolean. */
export const diskIdentityOf = <R extends Record<Column, unknown> & { weakIdentity: number }>(
  row: R,
): Identity<R, boolean> => ({ ...pick(row), weakIdentity: row.weakIdentity === 1 });

/** Record → the identity columns to write, `weakIdentity` 0/1. */
export const diskIdentityColumns = <D extends Record<Column, unknown> & { weakIdentity: boolean }>(
  disk: D,
): Identity<D, 0 | 1> => ({ ...pick(disk), weakIdentity: disk.weakIdentity ? 1 : 0 });
