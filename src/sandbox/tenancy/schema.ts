import {column, conditionOf} from '../storage/column-rules.js'
import {addColumn, byPartner, type Schema} from '../storage/database.js'
import {CREDENTIAL_CHARS, MIN_SECRET_LENGTH} from './partners.js'

/**
 * The partners of the data file, with their credentials and names (unique, checked by the
 * directory; a partner a sandbox started with is named by its id), and the tokens revoked
 * before they expire.
 */
export const AUTH_SCHEMA: Schema = {
  name: 'auth',
  sql: `
CREATE TABLE IF NOT EXISTS partners (
  partner_id TEXT PRIMARY KEY,
  api_key TEXT NOT NULL UNIQUE,
  api_secret TEXT NOT NULL,
  secret_key TEXT NOT NULL UNIQUE,
  name TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS revoked_tokens (
  jti TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
  tables: [
    byPartner(
      'partners',
      {
        api_key: column.code('pk_test_', CREDENTIAL_CHARS, 1, 128),
        api_secret: column.code('sk_test_', CREDENTIAL_CHARS, MIN_SECRET_LENGTH, 128),
        secret_key: column.code('test_', CREDENTIAL_CHARS, MIN_SECRET_LENGTH, 128),
        name: column.text(64),
        created_at: column.time,
        // Empty for a partner never started with (PartnerDirectory.create).
        started_at: column.text(30),
      },
      {
        keptByReset: "the partner's credentials: a reset partner still signs in",
        // A whole sandbox's snapshot brings its partners back under their ids.
        checks: [
          {
            what: 'its partner_id is not up to 64 letters, digits, _ or -',
            sql: conditionOf(column.code('', CREDENTIAL_CHARS, 1, 64), 'r.partner_id'),
          },
        ],
      },
    ),
    {
      name: 'revoked_tokens',
      tie: {shared: 'a token id alone, whoever it was issued to; each is forgotten once its token expires'},
    },
  ],
  migrations: [
    {
      // Partners side by side: each has a name to be managed by.
      version: 5,
      up: (database) => {
        addColumn(database, 'partners', 'name', 'TEXT')
        database.db.exec('UPDATE partners SET name = partner_id WHERE name IS NULL')
      },
    },
  ],
}
