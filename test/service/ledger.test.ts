import {DatabaseSync} from 'node:sqlite'
import {describe, expect, test} from 'vitest'
import {openDatabase, SCHEMAS} from '../../src/sandbox/features.js'
import {parseRequestJson} from '../../src/sandbox/http/json.js'
import {Ledger} from '../../src/sandbox/money/ledger.js'
import {SCHEMA_VERSION} from '../../src/sandbox/storage/database.js'
import {PartnerRows} from '../../src/sandbox/tenancy/partner-rows.js'
import {query, start, tempDir} from './helpers.js'
import {createTx, data, expectLedgerBalanced, ledgerProblems, parseExact, wallet} from './money-helpers.js'

describe('the ledger', () => {
  test('200 parallel transfers between a handful of wallets never overdraw and keep every balance equal to its ledger', async () => {
    const files = tempDir()
    const t = await start({data: files.file, rateLimit: 'off'})
    try {
      const wallets = await Promise.all(Array.from({length: 5}, () => wallet(t, 'USD', 10_000)))
      // A fixed pseudo-random sequence, so that a failure can be reproduced.
      let seed = 42
      const next = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
        return seed % n
      }
      const transfers = Array.from({length: 200}, () => {
        const from = next(5)
        const to = (from + 1 + next(4)) % 5
        return {amount: 500 + next(9_500), from: wallets[from], to: wallets[to]}
      })
      const replies = await Promise.all(
        transfers.map((x) =>
          createTx(t, {
            amount: x.amount,
            currency: 'USD',
            method: 'wallet',
            sourceWalletId: x.from,
            destinationWalletId: x.to,
          }),
        ),
      )
      const statuses = replies.map((r) => r.status)
      expect(statuses.every((s) => s === 201 || s === 402)).toBe(true)
      expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(50)
      // Some were refused for want of funds: the race was real.
      expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(0)
      const balances = await Promise.all(
        wallets.map(async (id) => data(await t.get(`/v1/wallets/${id}`)).balance),
      )
      for (const b of balances) expect(b.available).toBeGreaterThanOrEqual(0)
      expect(balances.reduce((sum, b) => sum + b.total, 0)).toBe(5 * 10_000)
      expectLedgerBalanced(files.file)
      const completed = query(
        files.file,
        "SELECT COUNT(*) AS n FROM transactions WHERE type = 'transfer_out'",
      )
      expect(completed[0]?.n).toBe(statuses.filter((s) => s === 201).length)
    } finally {
      await t.close()
      files.cleanup()
    }
  })

  test('keeps ETH amounts beyond 2^53 exact through a deposit, a transfer and a read', async () => {
    const files = tempDir()
    const t = await start({data: files.file, rateLimit: 'off', settleAfterSeconds: 60})
    try {
      const initial = 3_000_000_000_000_000_001n // 3 ETH and one wei
      const source = await wallet(t, 'ETH', initial)
      const destination = await wallet(t, 'ETH')
      expect((await t.get(`/v1/wallets/${source}/balance`)).text).toContain('"available":3000000000000000001')
      const amount = 1_234_567_890_123_456_789n
      const raw = `{"amount":${amount},"currency":"ETH","method":"wallet","sourceWalletId":"${source}","destinationWalletId":"${destination}"}`
      const res = await t.call('POST', '/v1/transactions', {raw})
      expect(res.status).toBe(201)
      expect(res.text).toContain(`"amount":${amount}`)
      const crypto = `{"amount":${amount},"currency":"ETH","method":"crypto","paymentMethodId":"pm_crypto_wallet","destinationWalletId":"${destination}"}`
      const deposit = parseExact((await t.call('POST', '/v1/transactions', {raw: crypto})).text) as {
        data: {id: string; fee: bigint; netAmount: bigint}
      }
      expect(deposit.data.fee).toBe(12_345_678_901_234_567n)
      expect(deposit.data.netAmount).toBe(amount - 12_345_678_901_234_567n)
      await t.post('/_sandbox/clock/advance', {seconds: 60})
      const sourceBalance = parseExact((await t.get(`/v1/wallets/${source}/balance`)).text) as {
        data: {available: bigint}
      }
      expect(sourceBalance.data.available).toBe(initial - amount)
      const destBalance = parseExact((await t.get(`/v1/wallets/${destination}`)).text) as {
        data: {balance: {total: bigint}}
      }
      expect(destBalance.data.balance.total).toBe(amount + amount - 12_345_678_901_234_567n)
      const read = parseExact((await t.get(`/v1/transactions/${deposit.data.id}`)).text) as {
        data: {amount: bigint}
      }
      expect(read.data.amount).toBe(amount)
      expectLedgerBalanced(files.file)
    } finally {
      await t.close()
      files.cleanup()
    }
  })

  test('a fractional amount written with an exponent is refused, not rounded', async () => {
    const t = await start({rateLimit: 'off'})
    try {
      const eth = await wallet(t, 'ETH')
      const raw = `{"amount":100000000000000000000.5,"currency":"ETH","method":"crypto","destinationWalletId":"${eth}"}`
      const res = await t.call('POST', '/v1/transactions', {raw})
      expect(res.status).toBe(400)
      expect(res.body.error.details.field).toBe('amount')
      const exponent = `{"amount":1.5e18,"currency":"ETH","method":"crypto","destinationWalletId":"${eth}"}`
      expect(data(await t.call('POST', '/v1/transactions', {raw: exponent}))).toMatchObject({
        status: 'processing',
      })
    } finally {
      await t.close()
    }
  })

  test('request JSON reads unsafe integers exactly and leaves everything else alone', () => {
    expect(
      parseRequestJson('{"a":12345678901234567890,"b":1.5e20,"c":1.5,"d":12.0,"e":-9007199254740993}'),
    ).toEqual({
      a: 12_345_678_901_234_567_890n,
      b: 150_000_000_000_000_000_000n,
      c: 1.5,
      d: 12,
      e: -9_007_199_254_740_993n,
    })
    expect(parseRequestJson('{"amount":100}')).toEqual({amount: 100})
  })

  test('opening a schema-1 data file gives its funded wallets an opening balance in the ledger', async () => {
    const files = tempDir()
    try {
      // A file as the sandbox wrote it before the ledger: balances stored, no entries.
      openDatabase(files.file).close()
      const raw = new DatabaseSync(files.file)
      raw.exec(`
        DELETE FROM transactions; DELETE FROM ledger_entries;
        UPDATE meta SET value = '1' WHERE key = 'schema_version';
        INSERT INTO wallets (id, partner_id, user_id, currency, status, available, pending, reserved,
          limit_transaction, limit_daily, limit_monthly, created_at, updated_at)
        VALUES ('wal_old', 'partner_x', 'usr_old', 'USD', 'active', '12345', '0', '0', '1', '2', '3',
          '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'),
          ('wal_empty', 'partner_x', 'usr_old', 'EUR', 'active', '0', '0', '0', '1', '2', '3',
          '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');
      `)
      raw.close()
      expect(ledgerProblems(files.file)).toEqual(['wal_old available is 12345, its ledger says 0'])
      openDatabase(files.file).close()
      expectLedgerBalanced(files.file)
      expect(
        query(files.file, "SELECT type, amount, status FROM transactions WHERE wallet_id = 'wal_old'"),
      ).toEqual([{type: 'adjustment', amount: '12345', status: 'completed'}])
      expect(query(files.file, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([
        {value: String(SCHEMA_VERSION)},
      ])
    } finally {
      files.cleanup()
    }
  })

  test('sandbox reset empties the money tables of the caller', async () => {
    const files = tempDir()
    const t = await start({data: files.file, rateLimit: 'off'})
    try {
      const userId = await t.user()
      const usd = await wallet(t, 'USD', 5_000, userId)
      await createTx(t, {amount: 1_000, currency: 'USD', method: 'wire', sourceWalletId: usd})
      await t.post(`/v1/users/${userId}/payment-methods`, {type: 'card', token: 'tok_visa'})
      await t.post(`/v1/users/${userId}/accounts/connect`)
      await t.post('/_sandbox/reset')
      for (const table of [
        'transactions',
        'ledger_entries',
        'wallet_volumes',
        'payment_methods',
        'link_tokens',
      ]) {
        expect(query(files.file, `SELECT COUNT(*) AS n FROM ${table}`), table).toEqual([{n: 0}])
      }
    } finally {
      await t.close()
      files.cleanup()
    }
  })
})

describe('the wallets the ledger keeps in memory', () => {
  test('show what the data file holds after a rollback, a deleted partner and a failed commit', () => {
    const database = openDatabase(':memory:')
    try {
      const ledger = new Ledger(database)
      const partnerRows = new PartnerRows(database, SCHEMAS)
      const now = new Date().toISOString()
      const limits = {transaction: 1_000_000n, daily: 1_000_000n, monthly: 1_000_000n}
      const open = (id: string) =>
        database.transaction(() =>
          ledger.open({
            id,
            partnerId: 'p',
            userId: 'usr_1',
            currency: 'USD',
            label: null,
            limits,
            createdAt: now,
          }),
        )
      const fund = (id: string, amount: bigint) => {
        const w = ledger.wallet(id, 'p')!
        ledger.post(
          'p',
          'txn_1',
          'USD',
          [
            {wallet: w, bucket: 'available', amount},
            {external: 'bank', amount: -amount},
          ],
          now,
        )
      }
      open('wal_a')
      database.transaction(() => fund('wal_a', 500n))
      expect(ledger.wallet('wal_a', 'p')?.available).toBe(500n)
      expect(ledger.wallet('wal_a', 'other')).toBeUndefined()

      // A change rolled back after its posting leaves the balance the file holds.
      expect(() =>
        database.transaction(() => {
          fund('wal_a', 250n)
          expect(ledger.wallet('wal_a', 'p')?.available).toBe(750n)
          throw new Error('refused after the posting')
        }),
      ).toThrow('refused')
      expect(ledger.wallet('wal_a', 'p')?.available).toBe(500n)

      // A wallet handed out is a copy: changing it changes nothing kept.
      const copy = ledger.wallet('wal_a', 'p')!
      copy.available = 1n
      expect(ledger.wallet('wal_a', 'p')?.available).toBe(500n)

      // Under group commit, a commit that fails takes its postings with it (here a reference
      // checked at commit that nothing fulfils).
      database.db.exec(`PRAGMA foreign_keys = ON; CREATE TABLE parent (id INTEGER PRIMARY KEY);
        CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`)
      database.groupCommits()
      database.transaction(() => {
        fund('wal_a', 100n)
        database.db.exec('INSERT INTO child VALUES (42)')
      })
      expect(ledger.wallet('wal_a', 'p')?.available).toBe(600n)
      expect(() => database.flush()).toThrow(/FOREIGN KEY/)
      expect(ledger.wallet('wal_a', 'p')?.available).toBe(500n)

      partnerRows.delete('p', 'all')
      database.flush()
      expect(ledger.wallet('wal_a', 'p')).toBeUndefined()
    } finally {
      database.close()
    }
  })
})
