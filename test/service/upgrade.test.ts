import {copyFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, test} from 'vitest'
import {openDatabase} from '../../src/sandbox/features.js'
import {SCHEMA_VERSION} from '../../src/sandbox/storage/database.js'
import {query, start, tempDir} from './helpers.js'
import {data, expectLedgerBalanced} from './money-helpers.js'

/** Written by the release before transactions had owners (test/fixtures/data-files/README.md). */
const PREVIOUS_RELEASE = join(import.meta.dirname, '..', 'fixtures', 'data-files', 'previous-release.db')

/** Tables and their columns, indexes and triggers: the shape of a data file. */
function shapeOf(file: string) {
  const objects = query(
    file,
    "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
  )
  return objects.map((o) =>
    o.type === 'table'
      ? `table ${o.name}: ${query(file, `SELECT name FROM pragma_table_info('${o.name}') ORDER BY name`)
          .map((c) => c.name)
          .join(', ')}`
      : `${o.type} ${o.name} on ${o.tbl_name}`,
  )
}

describe('a data file written by the previous release', () => {
  test('opens and upgrades in place: its transactions gain their owners, and every balance still equals its ledger', async () => {
    const files = tempDir()
    copyFileSync(PREVIOUS_RELEASE, files.file)
    expect(query(files.file, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([{value: '2'}])
    const t = await start({data: files.file, rateLimit: 'off'})
    try {
      expect(t.creds.partnerId).toBe('partner_previous')
      expect(query(files.file, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([
        {value: String(SCHEMA_VERSION)},
      ])
      // Each product's migration named the owners of what it had moved.
      const owners = query(
        files.file,
        `SELECT owner_kind AS kind, type, COUNT(*) AS n FROM transactions WHERE owner_kind IS NOT NULL
         GROUP BY owner_kind, type ORDER BY owner_kind, type`,
      )
      expect(owners).toEqual([
        {kind: 'bnpl_installment', type: 'payment', n: 3},
        {kind: 'roundup_transfer', type: 'transfer_in', n: 1},
        {kind: 'roundup_transfer', type: 'transfer_out', n: 1},
        {kind: 'roundup_transfer', type: 'withdrawal', n: 1},
        {kind: 'walletsvc_p2p', type: 'transfer_in', n: 1},
        {kind: 'walletsvc_p2p', type: 'transfer_out', n: 1},
        {kind: 'walletsvc_payment', type: 'payment', n: 1},
      ])
      expect(query(files.file, "SELECT name FROM sqlite_master WHERE type = 'trigger'")).toEqual([])

      // A collected BNPL instalment is still refused a refund, as before, from its owner alone.
      const payments = data(await t.get('/v1/bnplsvc/payments?status=active')).payments
      expect(payments).toHaveLength(1)
      const [payment] = payments
      const first = payment.schedule[0]
      const refused = await t.post(`/v1/transactions/${first.transactionId}/refund`, {})
      expect(refused.status).toBe(422)
      expect(refused.body.error).toMatchObject({
        code: 'TRANSACTION_NOT_REFUNDABLE',
        details: {owner: {product: 'bnplsvc', paymentId: payment.id, installment: 1}},
      })
      // A plain card deposit still refunds.
      const deposits = data(await t.get('/v1/transactions?type=deposit&limit=100')).transactions
      const whole = deposits.find((d: {description?: string}) => d.description === 'kept whole')
      const refund = await t.post(`/v1/transactions/${whole.id}/refund`, {})
      expect(refund.status, refund.text).toBe(201)
      expect(data(refund)).toMatchObject({type: 'refund', amount: 4_000, originalTransactionId: whole.id})
      // The payments and transfers the previous release recorded read as they did.
      expect(payment).toMatchObject({status: 'active', paidInstallments: 2})
      expectLedgerBalanced(files.file)

      // Its users are listed, oldest first; its events are found by what they are about, and its
      // ledger entries read as statements that end at each wallet's balance.
      const users = data(await t.get('/v1/users')).users
      expect(users).toHaveLength(3)
      const created = users.map((u: {created_at: string}) => u.created_at)
      expect(created).toEqual([...created].sort())
      const userEvents = data(await t.get(`/v1/events?userId=${payment.userId}&limit=100`)).events
      const types = new Set(userEvents.map((e: {event: string}) => e.event))
      for (const type of ['wallet.created', 'transaction.completed', 'bnplsvc.payment.created'])
        expect(types, type).toContain(type)
      const firstEvents = data(await t.get(`/v1/events?transactionId=${first.transactionId}`)).events
      expect(firstEvents.map((e: {event: string}) => e.event)).toContain('transaction.completed')
      const entries = data(await t.get(`/v1/wallets/${payment.walletId}/ledger-entries?limit=100`)).entries
      const wallet = data(await t.get(`/v1/wallets/${payment.walletId}`))
      expect(entries[0].balanceAfter).toEqual(wallet.balance)
      expect(entries.map((e: {transactionId: string}) => e.transactionId)).toContain(first.transactionId)
    } finally {
      await t.close()
    }
    // Upgraded, the file has the shape of one the sandbox makes afresh.
    const fresh = tempDir()
    openDatabase(fresh.file).close()
    try {
      expect(shapeOf(files.file)).toEqual(shapeOf(fresh.file))
    } finally {
      fresh.cleanup()
      files.cleanup()
    }
  })
})
