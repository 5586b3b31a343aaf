// chopsticks writes the whole runtime (`:code`, 5.5 MB as hex) into every
// block's stored storage diff although it never changes. Dropping those
// copies takes the seeded chain from over a gigabyte to a few megabytes; a
// block without `:code` in its diff reads it from its parent, down to genesis.
import sqlite3 from 'sqlite3';

/** The well-known storage key `:code`, where the runtime lives. */
export const CODE_KEY = '0x3a636f6465';

function run(db: sqlite3.Database, sql: string, params: unknown[] = []): Promise<void> {
  return new Promise((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));
}

function all<T>(db: sqlite3.Database, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) => db.all(sql, (error, rows) => (error ? reject(error) : resolve(rows as T[]))));
}

/** Removes `:code` from every stored diff that sets it to `genesisCode`; returns how many it removed. */
export async function dropRepeatedCode(dbPath: string, genesisCode: string): Promise<number> {
  const db = new sqlite3.Database(dbPath);
  try {
    const blocks = await all<{ hash: string; storageDiff: string | null }>(db, 'SELECT hash, storageDiff FROM block');
    let removed = 0;
    await run(db, 'BEGIN');
    for (const { hash, storageDiff } of blocks) {
      if (!storageDiff) continue;
      const diff = JSON.parse(storageDiff) as Record<string, string | null>;
      if (diff[CODE_KEY] !== genesisCode) continue;
      delete diff[CODE_KEY];
      await run(db, 'UPDATE block SET storageDiff = ? WHERE hash = ?', [JSON.stringify(diff), hash]);
      removed += 1;
    }
    await run(db, 'DELETE FROM key_value_pair WHERE key = ? AND value = ?', [CODE_KEY, genesisCode]);
    await run(db, 'COMMIT');
    await run(db, 'PRAGMA journal_mode = DELETE');
    await run(db, 'VACUUM');
    return removed;
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}
