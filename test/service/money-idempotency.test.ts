import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {start, type TestSandbox, tempDir} from './helpers.js'
import {balanceOf, createTx, data, wallet} from './money-helpers.js'

describe('idempotent transactions', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start({rateLimit: 'off', settleAfterSeconds: 3600})
  })
  afterAll(() => t.close())

  const deposit = (walletId: string) => ({
    amount: 1_000,
    currency: 'USD',
    method: 'card',
    paymentMethodId: 'pm_card_visa',
    destinationWalletId: walletId,
  })

  test('the idempotencyKey body field replays the first response, header or not, and moves money once', async () => {
    const usd = await wallet(t, 'USD')
    const first = await createTx(t, {...deposit(usd), idempotencyKey: 'body-key-1'})
    expect(first.status).toBe(201)
    const again = await createTx(t, {...deposit(usd), idempotencyKey: 'body-key-1'})
    expect(again.text).toBe(first.text)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    // The same key in the header is the same request.
    const viaHeader = await createTx(t, deposit(usd), {'idempotency-key': 'body-key-1'})
    expect(viaHeader.text).toBe(first.text)
    const both = await createTx(
      t,
      {...deposit(usd), idempotencyKey: 'body-key-1'},
      {'idempotency-key': 'body-key-1'},
    )
    expect(both.text).toBe(first.text)
    expect((await balanceOf(t, usd)).available).toBe(1_000 - 59)
    const list = data(await t.get(`/v1/transactions?walletId=${usd}&type=deposit`))
    expect(list.transactions).toHaveLength(1)
  })

  test('the same key for a different request is 409 DUPLICATE_TRANSACTION', async () => {
    const usd = await wallet(t, 'USD')
    const headers = {'idempotency-key': 'header-key-1'}
    expect((await createTx(t, deposit(usd), headers)).status).toBe(201)
    const res = await createTx(t, {...deposit(usd), amount: 2_000}, headers)
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual({
      code: 'DUPLICATE_TRANSACTION',
      message: expect.any(String),
      details: {idempotencyKey: 'header-key-1'},
    })
    const viaBody = await createTx(t, {...deposit(usd), amount: 2_000, idempotencyKey: 'header-key-1'})
    expect(viaBody.status).toBe(409)
  })

  test('a header and a body field that differ are refused before anything happens', async () => {
    const usd = await wallet(t, 'USD')
    const res = await createTx(t, {...deposit(usd), idempotencyKey: 'a'}, {'idempotency-key': 'b'})
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({code: 'VALIDATION_ERROR', details: {field: 'idempotencyKey'}})
    expect((await createTx(t, {...deposit(usd), idempotencyKey: 'a'})).status).toBe(201)
  })

  test('a declined card replays its 402 without a second failed transaction', async () => {
    const usd = await wallet(t, 'USD')
    const body = {...deposit(usd), paymentMethodId: 'pm_card_declined', idempotencyKey: 'declined-1'}
    const first = await createTx(t, body)
    expect(first.status).toBe(402)
    const again = await createTx(t, body)
    expect(again.status).toBe(402)
    expect(again.text).toBe(first.text)
    const failed = data(await t.get(`/v1/transactions?walletId=${usd}&status=failed`))
    expect(failed.transactions.map((x: {id: string}) => x.id)).toEqual([
      first.body.error.details.transactionId,
    ])
  })

  test('an insufficient-funds refusal is replayed too, even once funds arrive', async () => {
    const source = await wallet(t, 'USD', 500)
    const destination = await wallet(t, 'USD')
    const body = {
      amount: 1_000,
      currency: 'USD',
      method: 'wallet',
      sourceWalletId: source,
      destinationWalletId: destination,
    }
    const headers = {'idempotency-key': 'nsf-1'}
    const first = await createTx(t, body, headers)
    expect(first.status).toBe(402)
    await createTx(t, deposit(source))
    expect((await createTx(t, body, headers)).text).toBe(first.text)
    expect((await createTx(t, body, {'idempotency-key': 'nsf-2'})).status).toBe(201)
  })
})

describe('after a restart on the same data file', () => {
  test('a transaction key replays its first response, and a decline stays declined', async () => {
    const files = tempDir()
    try {
      const before = await start({data: files.file, rateLimit: 'off'})
      const usd = await wallet(before, 'USD', 10_000)
      const other = await wallet(before, 'USD')
      const transfer = {
        amount: 2_000,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: usd,
        destinationWalletId: other,
      }
      const first = await createTx(before, {...transfer, idempotencyKey: 'restart-1'})
      const declined = await createTx(
        before,
        {
          amount: 2_000,
          currency: 'USD',
          method: 'card',
          paymentMethodId: 'pm_card_declined',
          destinationWalletId: usd,
        },
        {'idempotency-key': 'restart-2'},
      )
      expect([first.status, declined.status]).toEqual([201, 402])
      await before.close()

      const after = await start({data: files.file, rateLimit: 'off'})
      try {
        const again = await createTx(after, transfer, {'idempotency-key': 'restart-1'})
        expect(again.text).toBe(first.text)
        expect(again.headers.get('idempotent-replayed')).toBe('true')
        const declinedAgain = await createTx(
          after,
          {
            amount: 2_000,
            currency: 'USD',
            method: 'card',
            paymentMethodId: 'pm_card_declined',
            destinationWalletId: usd,
          },
          {'idempotency-key': 'restart-2'},
        )
        expect(declinedAgain.text).toBe(declined.text)
        expect((await balanceOf(after, usd)).available).toBe(8_000)
        expect(
          (await createTx(after, {...transfer, amount: 1}, {'idempotency-key': 'restart-1'})).status,
        ).toBe(409)
      } finally {
        await after.close()
      }
    } finally {
      files.cleanup()
    }
  })
})
