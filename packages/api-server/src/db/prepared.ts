import type { Db } from './open.ts';

/**
 * Statements prepared once per connection: `statementsFor(db)` runs `prepare(db)` the first time it
 * sees `db`'s connection and returns the same statements afterwards. For the hot paths, where
 * preparing a statement costs more than running it. Keyed weakly by the better-sqlite3 connection,
 * so a closed database's statements go with it.
 */
export function preparedPerConnection<T>(prepare: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db['$client'], T>();
  return (db) => {
    let statements = cache.get(db.$client);
    if (statements === undefined) {
      statements = prepare(db);
      cache.set(db.$client, statements);
    }
    return statements;
  };
}
