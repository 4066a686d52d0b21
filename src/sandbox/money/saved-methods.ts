import type {PaymentMethod} from '../../contract/payment-methods.js'
import type {Database} from '../database.js'
import {randomHex} from '../ids.js'
import type {Instrument, InstrumentTemplate} from './catalog.js'

/**
 * A user's saved payment methods, as stored in `payment_methods`. Two features save them (adding
 * one from a test token, and linking a bank account), so they are kept here where both may reach
 * them; and a method goes with the bank-account link it came from, so one place deletes both.
 */

export interface MethodRow {
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

export function fromMethodRow(row: MethodRow): PaymentMethod {
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

function statements(database: Database) {
  return {
    insertMethod: database.prepare<MethodRow>(
      `INSERT INTO payment_methods (id, partner_id, user_id, type, behaviour, brand, last4, bank_name, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?) RETURNING *`,
    ),
    deleteMethod: database.prepare(
      'DELETE FROM payment_methods WHERE id = ? AND user_id = ? AND partner_id = ?',
    ),
    deleteAccountOf: database.prepare('DELETE FROM bank_accounts WHERE payment_method_id = ?'),
  }
}

export class SavedMethods {
  private readonly q: ReturnType<typeof statements>

  constructor(database: Database) {
    this.q = statements(database)
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
   * user has no such method. Run it in a transaction, so that neither goes without the other.
   */
  remove(partnerId: string, userId: string, methodId: string): boolean {
    const {changes} = this.q.deleteMethod.run(methodId, userId, partnerId)
    if (changes === 0) return false
    this.q.deleteAccountOf.run(methodId)
    return true
  }
}
