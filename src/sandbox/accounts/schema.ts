import {column} from '../storage/column-rules.js'
import {byPartner, type Schema} from '../storage/database.js'

/** Link tokens: a bank-account link begun and not yet exchanged (the accounts it makes are the kernel's). */
export const ACCOUNTS_SCHEMA: Schema = {
  name: 'accounts',
  sql: `
CREATE TABLE IF NOT EXISTS link_tokens (
  token TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
`,
  tables: [
    byPartner('link_tokens', {
      token: column.code('link-sandbox-', '0-9a-f-', 36),
      user_id: column.ref('users', 'usr'),
      expires_at: column.ms,
      used: column.flag,
    }),
  ],
}
