import {ID_MAX_LENGTH} from '../../contract/fields.js'
import {ApiError} from '../http/api-error.js'
import {column} from '../storage/column-rules.js'
import {byPartner, type Database, type Schema, type Statement, sqlMigration} from '../storage/database.js'

const USERS_TABLE = (name: string) => `
CREATE TABLE IF NOT EXISTS ${name} (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  partner_id TEXT NOT NULL,
  email TEXT NOT NULL,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  external_id TEXT,
  created_at TEXT NOT NULL
);`
/**
 * Users are listed by partner in the order they came (an index holds the row number after its
 * columns), and found by email, in any case, or by external id.
 */
const USERS_INDEXES = `
CREATE INDEX IF NOT EXISTS users_by_partner ON users (partner_id);
CREATE INDEX IF NOT EXISTS users_by_email ON users (partner_id, email COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS users_by_external_id ON users (partner_id, external_id);
`

/**
 * The users of each partner. Every feature acts for a user, and must act only for the caller's
 * own: the table and that check are kept here, below the features, so that each path through the
 * sandbox checks the tenant the same way.
 */
export const TENANTS: Schema = {
  name: 'tenants',
  sql: `${USERS_TABLE('users')}${USERS_INDEXES}`,
  tables: [
    byPartner('users', {
      seq: column.seq,
      id: column.id('usr'),
      email: column.text(254),
      first_name: column.text(100),
      last_name: column.text(100),
      external_id: column.text(ID_MAX_LENGTH),
      created_at: column.time,
    }),
  ],
  migrations: [
    // Schema 4 to 5: users are numbered in the order they were created, so that they can be listed
    // in pages like every other list; the table is made anew (a table keyed by its id alone has no
    // row numbers to add a column to).
    sqlMigration(
      5,
      `${USERS_TABLE('users_v5')}
INSERT INTO users_v5 (id, partner_id, email, first_name, last_name, external_id, created_at)
  SELECT id, partner_id, email, first_name, last_name, external_id, created_at FROM users ORDER BY created_at, id;
DROP TABLE users;
ALTER TABLE users_v5 RENAME TO users;
${USERS_INDEXES}`,
    ),
  ],
}

export interface UserRow {
  seq: number
  id: string
  partner_id: string
  email: string
  first_name: string
  last_name: string
  external_id: string | null
  created_at: string
}

/**
 * Where a request names the user it acts for: in its path (an unknown user is 404 NOT_FOUND, like
 * any resource of the path), or in a field of its body (400 INVALID_USER_ID naming the field).
 */
export type UserNamed = 'path' | {field: string}

/** The users table, and the one check that a user is the caller's. */
export class Tenants {
  readonly #byId: Statement<UserRow>
  readonly #insert: Statement

  constructor(database: Database) {
    this.#byId = database.prepare<UserRow>('SELECT * FROM users WHERE id = ?')
    this.#insert = database.prepare(
      'INSERT INTO users (id, partner_id, email, first_name, last_name, external_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
  }

  /**
   * The user `userId` of `partnerId`. Another partner's user does not exist for the caller: it is
   * refused as an unknown one, with the error of where the request `named` it.
   */
  requireUser(partnerId: string, userId: string, named: UserNamed = 'path'): UserRow {
    const row = this.#byId.get(userId)
    if (row !== undefined && row.partner_id === partnerId) return row
    if (named === 'path') throw new ApiError('NOT_FOUND', `No user ${userId}`, {resource: 'user', id: userId})
    throw new ApiError('INVALID_USER_ID', `No user ${userId}`, {field: named.field, value: userId})
  }

  add(user: Omit<UserRow, 'seq'>): void {
    this.#insert.run(
      user.id,
      user.partner_id,
      user.email,
      user.first_name,
      user.last_name,
      user.external_id,
      user.created_at,
    )
  }
}
