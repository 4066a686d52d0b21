import {randomUUID} from 'node:crypto'
import type {z} from 'zod'
import type {BankAccount, ExchangeLinkTokenSchema, LinkToken} from '../../contract/accounts.js'
import type {endpoints} from '../../contract/endpoints.js'
import type {AddPaymentMethodSchema, PaymentMethod} from '../../contract/payment-methods.js'
import type {SandboxContext} from '../context.js'
import type {Database} from '../database.js'
import {ApiError} from '../errors.js'
import {randomHex} from '../ids.js'
import {DEFAULT_PAGE_SIZE, Pagination} from '../pagination.js'
import {
  type Instrument,
  type InstrumentTemplate,
  TEST_BANK_ACCOUNTS,
  TEST_TOKENS,
} from '../transactions/catalog.js'

/** How long a link token stays usable. */
export const LINK_TOKEN_TTL_MS = 30 * 60 * 1000

const pages = new Pagination('payment_methods', 'oldest first')
type ExchangeLinkToken = z.output<typeof ExchangeLinkTokenSchema>
type AddPaymentMethod = z.output<typeof AddPaymentMethodSchema>
type PageQuery = z.output<typeof endpoints.listPaymentMethods.query>

interface MethodRow {
  seq: number
  id: string
  user_id: string
  type: PaymentMethod['type']
  brand: string | null
  last4: string | null
  bank_name: string | null
  status: PaymentMethod['status']
  created_at: string
}

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

function toPaymentMethod(
  m: Omit<Instrument, 'behaviour'> & {status?: PaymentMethod['status']},
): PaymentMethod {
  const out: PaymentMethod = {
    id: m.id,
    userId: m.userId,
    type: m.type,
    status: m.status ?? 'active',
    createdAt: m.createdAt,
  }
  if (m.brand !== undefined) out.brand = m.brand
  if (m.last4 !== undefined) out.last4 = m.last4
  if (m.bankName !== undefined) out.bankName = m.bankName
  return out
}

function fromMethodRow(row: MethodRow): PaymentMethod {
  return toPaymentMethod({
    id: row.id,
    userId: row.user_id,
    type: row.type,
    status: row.status,
    createdAt: row.created_at,
    ...(row.brand === null ? {} : {brand: row.brand}),
    ...(row.last4 === null ? {} : {last4: row.last4}),
    ...(row.bank_name === null ? {} : {bankName: row.bank_name}),
  })
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
    insertMethod: database.prepare<MethodRow>(
      `INSERT INTO payment_methods (id, partner_id, user_id, type, behaviour, brand, last4, bank_name, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?) RETURNING *`,
    ),
    methodsPage: database.prepare<MethodRow>(
      'SELECT * FROM payment_methods WHERE user_id = ? AND partner_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    insertAccount: database.prepare<AccountRow>(
      `INSERT INTO bank_accounts (id, partner_id, user_id, bank_name, last4, payment_method_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    deleteMethod: database.prepare(
      'DELETE FROM payment_methods WHERE id = ? AND user_id = ? AND partner_id = ?',
    ),
    deleteAccountOf: database.prepare('DELETE FROM bank_accounts WHERE payment_method_id = ?'),
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

/** Bank-account links (`accounts`) and saved payment methods of users. */
export class AccountService {
  private readonly q: ReturnType<typeof statements>

  constructor(private readonly ctx: SandboxContext) {
    this.q = statements(ctx.database)
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
      const method = this.saveMethod(partnerId, userId, template, now)
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

  /** A payment method saved from one of the test tokens, which must be of the type asked for. */
  addPaymentMethod(partnerId: string, userId: string, body: AddPaymentMethod): PaymentMethod {
    const template = TEST_TOKENS.get(body.token)
    if (template === undefined) {
      throw new ApiError('INVALID_PAYMENT_METHOD', `Unknown test token ${body.token}`, {
        field: 'token',
        token: body.token,
        supported: [...TEST_TOKENS.keys()],
      })
    }
    if (template.type !== body.type) {
      throw new ApiError(
        'INVALID_PAYMENT_METHOD',
        `Token ${body.token} is a ${template.type} token, not ${body.type}`,
        {
          field: 'type',
          type: body.type,
          tokenType: template.type,
        },
      )
    }
    return fromMethodRow(this.saveMethod(partnerId, userId, template, this.ctx.clock.now().toISOString()))
  }

  /** A page of the user's payment methods, oldest first. */
  listPaymentMethods(partnerId: string, userId: string, query: PageQuery) {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE
    const list = pages.of(this.ctx.cursors, partnerId)
    const rows = this.q.methodsPage.all(userId, partnerId, list.start(query.cursor), limit + 1)
    const {shown, hasMore, nextCursor} = list.page(rows, limit)
    return {paymentMethods: shown.map(fromMethodRow), hasMore, nextCursor}
  }

  /**
   * Remove a payment method the user saved; a bank account linked through it goes with it. Its past
   * transactions keep its id; new ones from it are refused (PAYMENT_METHOD_NOT_FOUND).
   */
  removePaymentMethod(partnerId: string, userId: string, methodId: string): {id: string; deleted: true} {
    return this.ctx.database.transaction(() => {
      const {changes} = this.q.deleteMethod.run(methodId, userId, partnerId)
      if (changes === 0) {
        throw new ApiError('NOT_FOUND', `No payment method ${methodId} saved for user ${userId}`, {
          resource: 'payment_method',
          id: methodId,
        })
      }
      this.q.deleteAccountOf.run(methodId)
      return {id: methodId, deleted: true}
    })
  }

  private saveMethod(partnerId: string, userId: string, t: InstrumentTemplate, now: string): MethodRow {
    return this.q.insertMethod.get(
      `pm_${randomHex(12)}`,
      partnerId,
      userId,
      t.type,
      t.behaviour,
      t.brand ?? null,
      t.last4 ?? null,
      t.bankName ?? null,
      now,
    )!
  }
}
