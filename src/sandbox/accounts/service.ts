import {randomUUID} from 'node:crypto'
import type {z} from 'zod'
import type {BankAccount, ExchangeLinkTokenSchema, LinkToken} from '../../contract/accounts.js'
import type {SandboxContext} from '../context.js'
import type {Database} from '../database.js'
import {ApiError} from '../errors.js'
import {randomHex} from '../ids.js'
import {TEST_BANK_ACCOUNTS} from '../money/catalog.js'
import {SavedMethods} from '../money/saved-methods.js'

/** How long a link token stays usable. */
export const LINK_TOKEN_TTL_MS = 30 * 60 * 1000

type ExchangeLinkToken = z.output<typeof ExchangeLinkTokenSchema>

interface AccountRow {
  id: string
  user_id: string
  bank_name: string
  last4: string
  payment_method_id: string
  created_at: string
}

interface LinkTokenRow {
  user_id: string
  expires_at: number
  used: number
}

function toBankAccount(row: AccountRow): BankAccount {
  return {
    id: row.id,
    userId: row.user_id,
    bankName: row.bank_name,
    last4: row.last4,
    status: 'connected',
    paymentMethodId: row.payment_method_id,
    createdAt: row.created_at,
  }
}

function statements(database: Database) {
  return {
    userPartner: database.prepare<{partner_id: string}>('SELECT partner_id FROM users WHERE id = ?'),
    insertToken: database.prepare(
      'INSERT INTO link_tokens (token, partner_id, user_id, expires_at) VALUES (?, ?, ?, ?)',
    ),
    tokenRow: database.prepare<LinkTokenRow>('SELECT * FROM link_tokens WHERE token = ? AND partner_id = ?'),
    useToken: database.prepare('UPDATE link_tokens SET used = 1 WHERE token = ?'),
    insertAccount: database.prepare<AccountRow>(
      `INSERT INTO bank_accounts (id, partner_id, user_id, bank_name, last4, payment_method_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    accountsOf: database.prepare<AccountRow>(
      'SELECT * FROM bank_accounts WHERE user_id = ? AND partner_id = ? ORDER BY seq',
    ),
    countAccounts: database.prepare<{n: number}>(
      'SELECT COUNT(*) AS n FROM bank_accounts WHERE user_id = ? AND partner_id = ?',
    ),
  }
}

/** Bank accounts a user may have linked at once: the list of them is one answer. */
const ACCOUNT_CAP = 100

/** Bank-account links (`accounts`) of users: each saves an ACH payment method. */
export class AccountService {
  private readonly q: ReturnType<typeof statements>
  private readonly saved: SavedMethods

  constructor(private readonly ctx: SandboxContext) {
    this.q = statements(ctx.database)
    this.saved = new SavedMethods(ctx.database)
  }

  /** The user of the path must be one of the partner's users: NOT_FOUND otherwise. */
  requireUser(partnerId: string, userId: string): void {
    const owner = this.q.userPartner.get(userId)
    if (owner?.partner_id !== partnerId)
      throw new ApiError('NOT_FOUND', `No user ${userId}`, {resource: 'user', id: userId})
  }

  /** A link token for the user, to exchange for a bank account before it expires. */
  connect(partnerId: string, userId: string): LinkToken {
    const token = `link-sandbox-${randomUUID()}`
    const expiresAt = this.ctx.clock.nowMs() + LINK_TOKEN_TTL_MS
    this.q.insertToken.run(token, partnerId, userId, expiresAt)
    return {linkToken: token, link_token: token, expiresAt: new Date(expiresAt).toISOString()}
  }

  /** The bank account (and its payment method) a link token of this user stands for; the token is used up. */
  exchange(partnerId: string, userId: string, body: ExchangeLinkToken): BankAccount {
    const {clock, database} = this.ctx
    const {tokenRow, useToken, insertAccount} = this.q
    const row = tokenRow.get(body.link_token, partnerId)
    const invalid = (reason: string, message: string) =>
      new ApiError('LINK_TOKEN_INVALID', message, {field: 'link_token', reason})
    if (row === undefined)
      throw invalid('unknown', 'Unknown link token: start with POST /users/{id}/accounts/connect')
    if (row.user_id !== userId) throw invalid('other_user', 'This link token was issued for another user')
    if (row.used !== 0) throw invalid('used', 'This link token has already been exchanged')
    if (row.expires_at <= clock.nowMs())
      throw invalid('expired', 'This link token has expired (tokens last 30 minutes)')
    const linked = Number(this.q.countAccounts.get(userId, partnerId)!.n)
    if (linked >= ACCOUNT_CAP) {
      throw new ApiError(
        'ACCOUNT_LIMIT',
        `User ${userId} has ${linked} linked bank accounts, the most a user may have; remove one first (payctl payment-methods remove)`,
        {limit: ACCOUNT_CAP, linked, userId},
      )
    }
    const now = clock.now().toISOString()
    return database.transaction(() => {
      useToken.run(body.link_token)
      const template = TEST_BANK_ACCOUNTS[body.test_account]
      const method = this.saved.save(partnerId, userId, template, now)
      return toBankAccount(
        insertAccount.get(
          `ba_${randomHex(12)}`,
          partnerId,
          userId,
          template.bankName ?? 'Sandbox Bank',
          template.last4 ?? '0000',
          method.id,
          now,
        )!,
      )
    })
  }

  /** The user's linked bank accounts, oldest first. */
  listAccounts(partnerId: string, userId: string): {accounts: BankAccount[]} {
    return {
      accounts: this.q.accountsOf.all(userId, partnerId).map(toBankAccount),
    }
  }
}
