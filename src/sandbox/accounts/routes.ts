import {randomUUID} from 'node:crypto'
import {endpoints} from '../../contract/endpoints.js'
import {
  AddPaymentMethodSchema,
  type BankAccount,
  ExchangeLinkTokenSchema,
  type LinkToken,
  type PaymentMethod,
} from '../../contract/transactions.js'
import {NoBodySchema} from '../auth/routes.js'
import {callerOf, type OperationInput, type RouteSpec, type SandboxContext} from '../context.js'
import {ApiError} from '../errors.js'
import {randomHex} from '../ids.js'
import {DEFAULT_PAGE_SIZE, Pagination} from '../pagination.js'
import {
  type Instrument,
  type InstrumentTemplate,
  TEST_BANK_ACCOUNTS,
  TEST_TOKENS,
} from '../transactions/catalog.js'
import {parseInput} from '../validation.js'

/** How long a link token stays usable. */
export const LINK_TOKEN_TTL_MS = 30 * 60 * 1000

const pages = new Pagination('payment_methods', 'oldest first')
const PageQuerySchema = endpoints.listPaymentMethods.query

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

export function toPaymentMethod(
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

/** Bank-account links (`accounts`) and saved payment methods of users. */
export function accountRoutes(ctx: SandboxContext): RouteSpec[] {
  const {clock, database} = ctx
  const {db} = database
  const userPartner = db.prepare('SELECT partner_id FROM users WHERE id = ?')
  const insertToken = db.prepare(
    'INSERT INTO link_tokens (token, partner_id, user_id, expires_at) VALUES (?, ?, ?, ?)',
  )
  const tokenRow = db.prepare('SELECT * FROM link_tokens WHERE token = ? AND partner_id = ?')
  const useToken = db.prepare('UPDATE link_tokens SET used = 1 WHERE token = ?')
  const insertMethod = db.prepare(
    `INSERT INTO payment_methods (id, partner_id, user_id, type, behaviour, brand, last4, bank_name, status, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?) RETURNING *`,
  )
  const methodsPage = db.prepare(
    'SELECT * FROM payment_methods WHERE user_id = ? AND partner_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  )
  const insertAccount = db.prepare(
    `INSERT INTO bank_accounts (id, partner_id, user_id, bank_name, last4, payment_method_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  )
  const accountsOf = db.prepare(
    'SELECT * FROM bank_accounts WHERE user_id = ? AND partner_id = ? ORDER BY seq',
  )

  /** The caller's partner and the user of the path, which must be one of its users. */
  function userOf(input: OperationInput): {partnerId: string; userId: string} {
    const partnerId = callerOf(input).partner.partnerId
    const userId = input.params.id ?? ''
    const owner = userPartner.get(userId) as {partner_id: string} | undefined
    if (owner?.partner_id !== partnerId)
      throw new ApiError('NOT_FOUND', `No user ${userId}`, {resource: 'user', id: userId})
    return {partnerId, userId}
  }

  function saveMethod(partnerId: string, userId: string, t: InstrumentTemplate, now: string): MethodRow {
    return insertMethod.get(
      `pm_${randomHex(12)}`,
      partnerId,
      userId,
      t.type,
      t.behaviour,
      t.brand ?? null,
      t.last4 ?? null,
      t.bankName ?? null,
      now,
    ) as unknown as MethodRow
  }

  return [
    {
      endpoint: endpoints.connectAccount,
      run(input): LinkToken {
        parseInput(NoBodySchema, input.body, 'request body')
        const {partnerId, userId} = userOf(input)
        const token = `link-sandbox-${randomUUID()}`
        const expiresAt = clock.nowMs() + LINK_TOKEN_TTL_MS
        insertToken.run(token, partnerId, userId, expiresAt)
        return {linkToken: token, link_token: token, expiresAt: new Date(expiresAt).toISOString()}
      },
    },
    {
      endpoint: endpoints.exchangeLinkToken,
      run(input): BankAccount {
        const {partnerId, userId} = userOf(input)
        const body = parseInput(ExchangeLinkTokenSchema, input.body, 'request body')
        const row = tokenRow.get(body.link_token, partnerId) as
          | {user_id: string; expires_at: number; used: number}
          | undefined
        const invalid = (reason: string, message: string) =>
          new ApiError('LINK_TOKEN_INVALID', message, {field: 'link_token', reason})
        if (row === undefined)
          throw invalid('unknown', 'Unknown link token: start with POST /users/{id}/accounts/connect')
        if (row.user_id !== userId) throw invalid('other_user', 'This link token was issued for another user')
        if (row.used !== 0) throw invalid('used', 'This link token has already been exchanged')
        if (row.expires_at <= clock.nowMs())
          throw invalid('expired', 'This link token has expired (tokens last 30 minutes)')
        const now = clock.now().toISOString()
        return database.transaction(() => {
          useToken.run(body.link_token)
          const template = TEST_BANK_ACCOUNTS[body.test_account]
          const method = saveMethod(partnerId, userId, template, now)
          return toBankAccount(
            insertAccount.get(
              `ba_${randomHex(12)}`,
              partnerId,
              userId,
              template.bankName ?? 'Sandbox Bank',
              template.last4 ?? '0000',
              method.id,
              now,
            ) as unknown as AccountRow,
          )
        })
      },
    },
    {
      endpoint: endpoints.listAccounts,
      run(input) {
        const {partnerId, userId} = userOf(input)
        return {accounts: (accountsOf.all(userId, partnerId) as unknown as AccountRow[]).map(toBankAccount)}
      },
    },
    {
      endpoint: endpoints.addPaymentMethod,
      run(input): PaymentMethod {
        const {partnerId, userId} = userOf(input)
        const body = parseInput(AddPaymentMethodSchema, input.body, 'request body')
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
        return fromMethodRow(saveMethod(partnerId, userId, template, clock.now().toISOString()))
      },
    },
    {
      endpoint: endpoints.listPaymentMethods,
      run(input) {
        const {partnerId, userId} = userOf(input)
        const query = parseInput(PageQuerySchema, input.query, 'query')
        const limit = query.limit ?? DEFAULT_PAGE_SIZE
        const start = pages.start(query.cursor)
        const rows = methodsPage.all(userId, partnerId, start, limit + 1) as unknown as MethodRow[]
        const {shown, hasMore, nextCursor} = pages.page(rows, limit)
        return {paymentMethods: shown.map(fromMethodRow), hasMore, nextCursor}
      },
    },
  ]
}
