import {randomUUID} from 'node:crypto'
import type {z} from 'zod'
import type {BankAccount, ExchangeLinkTokenSchema, LinkToken} from '../../contract/accounts.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {TEST_BANK_ACCOUNTS} from '../money/catalog.js'
import {MAX_ACCOUNTS_PER_USER, toBankAccount} from '../money/saved-methods.js'
import type {Database} from '../storage/database.js'

/** How long a link token stays usable. */
export const LINK_TOKEN_TTL_MS = 30 * 60 * 1000

type ExchangeLinkToken = z.output<typeof ExchangeLinkTokenSchema>

interface LinkTokenRow {
  user_id: string
  expires_at: number
  used: number
}

function statements(database: Database) {
  return {
    insertToken: database.prepare(
      'INSERT INTO link_tokens (token, partner_id, user_id, expires_at) VALUES (?, ?, ?, ?)',
    ),
    tokenRow: database.prepare<LinkTokenRow>('SELECT * FROM link_tokens WHERE token = ? AND partner_id = ?'),
    useToken: database.prepare('UPDATE link_tokens SET used = 1 WHERE token = ?'),
  }
}

/** Bank-account links (`accounts`) of users: each saves an ACH payment method. */
export class AccountService {
  private readonly q: ReturnType<typeof statements>

  constructor(private readonly deps: Pick<SandboxContext, 'database' | 'clock' | 'money'>) {
    this.q = statements(deps.database)
  }

  /** A link token for the user, to exchange for a bank account before it expires. */
  connect(partnerId: string, userId: string): LinkToken {
    const token = `link-sandbox-${randomUUID()}`
    const expiresAt = this.deps.clock.nowMs(partnerId) + LINK_TOKEN_TTL_MS
    this.q.insertToken.run(token, partnerId, userId, expiresAt)
    return {linkToken: token, link_token: token, expiresAt: new Date(expiresAt).toISOString()}
  }

  /** The bank account (and its payment method) a link token of this user stands for; the token is used up. */
  exchange(partnerId: string, userId: string, body: ExchangeLinkToken): BankAccount {
    const {clock, database, money} = this.deps
    const row = this.q.tokenRow.get(body.link_token, partnerId)
    const invalid = (reason: string, message: string) =>
      new ApiError('LINK_TOKEN_INVALID', message, {field: 'link_token', reason})
    if (row === undefined)
      throw invalid('unknown', 'Unknown link token: start with POST /users/{id}/accounts/connect')
    if (row.user_id !== userId) throw invalid('other_user', 'This link token was issued for another user')
    if (row.used !== 0) throw invalid('used', 'This link token has already been exchanged')
    if (row.expires_at <= clock.nowMs(partnerId))
      throw invalid('expired', 'This link token has expired (tokens last 30 minutes)')
    const linked = money.saved.countBankAccounts(userId, partnerId)
    if (linked >= MAX_ACCOUNTS_PER_USER) {
      throw new ApiError(
        'ACCOUNT_LIMIT',
        `User ${userId} has ${linked} linked bank accounts, the most a user may have; remove one first (payctl payment-methods remove)`,
        {limit: MAX_ACCOUNTS_PER_USER, linked, userId},
      )
    }
    const now = clock.now(partnerId).toISOString()
    return database.transaction(() => {
      this.q.useToken.run(body.link_token)
      const template = TEST_BANK_ACCOUNTS[body.test_account]
      return toBankAccount(money.saved.linkBankAccount(partnerId, userId, template, now))
    })
  }

  /** The user's linked bank accounts, oldest first. */
  listAccounts(partnerId: string, userId: string): {accounts: BankAccount[]} {
    return {accounts: this.deps.money.saved.bankAccountsOf(userId, partnerId).map(toBankAccount)}
  }
}
