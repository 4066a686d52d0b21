import {type Database, MONEY_TABLES, type Statement} from '../database.js'

/** The one change a control route makes to the data: wiping a partner's records. */
export class ControlService {
  private readonly wipe: Statement[]

  constructor(private readonly database: Database) {
    this.wipe = ['users', 'wallets', 'events', 'idempotency_keys', ...MONEY_TABLES].map((table) =>
      database.prepare(`DELETE FROM ${table} WHERE partner_id = ?`),
    )
  }

  /** Every record of the partner, gone in one transaction. */
  reset(partnerId: string): void {
    this.database.transaction(() => {
      for (const statement of this.wipe) statement.run(partnerId)
    })
  }
}
