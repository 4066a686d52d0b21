import type {StatementSync} from 'node:sqlite'
import {type Database, MONEY_TABLES} from '../database.js'

/** The one change a control route makes to the data: wiping a partner's records. */
export class ControlService {
  private readonly wipe: StatementSync[]

  constructor(private readonly database: Database) {
    const {db} = database
    this.wipe = ['users', 'wallets', 'events', 'idempotency_keys', ...MONEY_TABLES].map((table) =>
      db.prepare(`DELETE FROM ${table} WHERE partner_id = ?`),
    )
  }

  /** Every record of the partner, gone in one transaction. */
  reset(partnerId: string): void {
    this.database.transaction(() => {
      for (const statement of this.wipe) statement.run(partnerId)
    })
  }
}
