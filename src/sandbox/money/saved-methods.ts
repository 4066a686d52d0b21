import type {BankAccount} from '../../contract/accounts.js'
import type {PaymentMethod} from '../../contract/payment-methods.js'
import type {Database} from '../storage/database.js'
import {randomHex} from '../storage/ids.js'
import {type Instrument, type InstrumentTemplate, TEST_PAYMENT_METHODS} from './catalog.js'

/** Bank accounts a user may have linked at once: the list of them is one answer. */
export const MAX_ACCOUNTS_PER_USER = 100

/**
 * Users' saved payment methods and the bank accounts linked with them (`payment_methods`,
 * `bank_accounts`). Several features reach them (saving one from a test token, linking a bank
 * account, paying into one from round-ups, drawing on one in any payment), so the kernel keeps
 * them; and a method goes with the bank-account link it came from, so one place deletes both.
 */

export interface MethodRow {
  seq: number
  id: string
  user_id: string
  type: PaymentMethod['type']
  behaviour: Instrument['behaviour']
  brand: string | null
  last4: string | null
  bank_name: string | null
  status: PaymentMethod['status']
  created_at: string
}

export interface BankAccountRow {
  id: string
  user_id: string
  bank_name: string
  last4: string
  payment_method_id: string
  created_at: string
}

export function fromMethodRow(row: MethodRow): PaymentMethod {
  const out: PaymentMethod = {
    id: row.id,
    userId: row.user_id,
    type: row.type,
    status: row.status,
    createdAt: row.created_at,
  }
  if (row.brand !== null) out.brand = row.brand
  if (row.last4 !== null) out.last4 = row.last4
  if (row.bank_name !== null) out.bankName = row.bank_name
  return out
}

export function toBankAccount(row: BankAccountRow): BankAccount {
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
    method: database.prepare<MethodRow>('SELECT * FROM payment_methods WHERE id = ? AND partner_id = ?'),
    insertMethod: database.prepare<MethodRow>(
      `INSERT INTO payment_methods (id, partner_id, user_id, type, behaviour, brand, last4, bank_name, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?) RETURNING *`,
    ),
    deleteMethod: database.prepare(
      'DELETE FROM payment_methods WHERE id = ? AND user_id = ? AND partner_id = ?',
    ),
    deleteAccountOf: database.prepare('DELETE FROM bank_accounts WHERE payment_method_id = ?'),
    insertAccount: database.prepare<BankAccountRow>(
      `INSERT INTO bank_accounts (id, partner_id, user_id, bank_name, last4, payment_method_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    account: database.prepare<BankAccountRow>('SELECT * FROM bank_accounts WHERE id = ? AND partner_id = ?'),
    accountsOf: database.prepare<BankAccountRow>(
      'SELECT * FROM bank_accounts WHERE user_id = ? AND partner_id = ? ORDER BY seq',
    ),
    countAccounts: database.prepare<{n: number}>(
      'SELECT COUNT(*) AS n FROM bank_accounts WHERE user_id = ? AND partner_id = ?',
    ),
  }
}

export class SavedMethods {
  private readonly q: ReturnType<typeof statements>

  constructor(private readonly database: Database) {
    this.q = statements(database)
  }

  /** A shared test payment method, or one the partner's users saved. */
  instrument(id: string, partnerId: string): Instrument | undefined {
    const shared = TEST_PAYMENT_METHODS.get(id)
    if (shared !== undefined) return shared
    const row = this.q.method.get(id, partnerId)
    if (row === undefined) return undefined
    const instrument: Instrument = {
      id: row.id,
      userId: row.user_id,
      type: row.type,
      behaviour: row.behaviour,
      createdAt: row.created_at,
    }
    if (row.brand !== null) instrument.brand = row.brand
    if (row.last4 !== null) instrument.last4 = row.last4
    if (row.bank_name !== null) instrument.bankName = row.bank_name
    return instrument
  }

  /** A new payment method of the user that behaves as the test instrument `t` does. */
  save(partnerId: string, userId: string, t: InstrumentTemplate, now: string): MethodRow {
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

  /**
   * Delete the user's payment method and the bank-account link it came from, if any: false when the
   * user has no such method. Both go, or neither.
   */
  remove(partnerId: string, userId: string, methodId: string): boolean {
    return this.database.transaction(() => {
      const {changes} = this.q.deleteMethod.run(methodId, userId, partnerId)
      if (changes === 0) return false
      this.q.deleteAccountOf.run(methodId)
      return true
    })
  }

  /** A bank account linked for the user, with the ACH payment method it is paid through. */
  linkBankAccount(partnerId: string, userId: string, t: InstrumentTemplate, now: string): BankAccountRow {
    return this.database.transaction(() => {
      const method = this.save(partnerId, userId, t, now)
      return this.q.insertAccount.get(
        `ba_${randomHex(12)}`,
        partnerId,
        userId,
        t.bankName ?? 'Sandbox Bank',
        t.last4 ?? '0000',
        method.id,
        now,
      )!
    })
  }

  bankAccount(id: string, partnerId: string): BankAccountRow | undefined {
    return this.q.account.get(id, partnerId)
  }

  /** The user's linked bank accounts, oldest first. */
  bankAccountsOf(userId: string, partnerId: string): BankAccountRow[] {
    return this.q.accountsOf.all(userId, partnerId)
  }

  countBankAccounts(userId: string, partnerId: string): number {
    return Number(this.q.countAccounts.get(userId, partnerId)!.n)
  }
}
