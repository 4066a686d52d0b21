import type {Database} from './database.js'

/**
 * Run `fn` with SQLite's page cache held to `kib` KiB, then give the cache its size back: for one
 * large write (a story of thousands of records), whose changed pages would otherwise all stay in
 * the cache until it commits, up to its 32 MB. Past the bound SQLite writes them to the WAL as it
 * goes (a data file's; an in-memory database keeps every page whatever the bound).
 */
export function withPageCache<T>(database: Database, kib: number, fn: () => T): T {
  const {db} = database
  const {cache_size: size} = db.prepare('PRAGMA cache_size').get() as {cache_size: number}
  db.exec(`PRAGMA cache_size = -${kib}`)
  try {
    return fn()
  } finally {
    db.exec(`PRAGMA cache_size = ${size}`)
  }
}
