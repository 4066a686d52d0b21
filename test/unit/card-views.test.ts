import {describe, expect, it} from 'vitest'
import {
  balanceCard,
  eligibilityCard,
  p2pCard,
  userCard,
  virtualCardCard,
  walletPaymentCard,
} from '../../src/cli/views/resource-views.js'

/**
 * The cards of records read loosely: each field payctl knows shows in its row (— where the row
 * needs it and it is missing) and nowhere else; every other field follows, once.
 */
describe('the cards of records a service may send with other fields', () => {
  it('shows a user in either spelling, then what else came', () => {
    const user = {
      id: 'usr_1',
      email: 'a@b.c',
      first_name: 'Ada',
      lastName: 'L',
      partnerId: 'p_1',
      external_id: 'x1',
      created_at: 't',
      tier: 'gold',
    }
    expect(userCard(user)).toEqual([
      ['id', 'usr_1'],
      ['email', 'a@b.c'],
      ['name', 'Ada L'],
      ['partner', 'p_1'],
      ['external id', 'x1'],
      ['created', 't'],
      ['tier', 'gold'],
    ])
    expect(userCard({id: 'usr_1', status: 'active'})).toEqual([
      ['id', 'usr_1'],
      ['email', '—'],
      ['name', '—'],
      ['partner', '—'],
      ['external id', undefined],
      ['created', '—'],
      ['status', 'active'],
    ])
  })

  it('shows a balance in its currency, without repeating the currency', () => {
    const balance = {
      available: 150,
      pending: 0,
      reserved: 25,
      total: 175,
      currency: 'USD',
      held: 5,
      note: null,
    }
    expect(balanceCard(balance)).toEqual([
      ['available', '1.50 USD'],
      ['pending', '0.00 USD'],
      ['reserved', '0.25 USD'],
      ['total', '1.75 USD'],
      ['held', '5'],
    ])
    expect(balanceCard({})).toEqual([
      ['available', '—'],
      ['pending', '—'],
      ['reserved', '—'],
      ['total', '—'],
    ])
  })

  it('shows a virtual card number in full when it came, masked from its last four otherwise', () => {
    const issued = {
      id: 'vc_1',
      userId: 'u',
      walletId: 'w',
      brand: 'visa',
      number: '4242424242424242',
      last4: '4242',
      cvc: '123',
      expMonth: 3,
      expYear: 2030,
      status: 'active',
      label: 'l',
      createdAt: 't',
      spendLimit: 500,
    }
    expect(virtualCardCard(issued)).toEqual([
      ['id', 'vc_1'],
      ['user', 'u'],
      ['wallet', 'w'],
      ['brand', 'visa'],
      ['number', '4242 4242 4242 4242'],
      ['cvc', '123'],
      ['expires', '03/2030'],
      ['status', 'active'],
      ['label', 'l'],
      ['created', 't'],
      ['spendLimit', '500'],
    ])
    const empty = (number: string) => [
      ['id', 'vc_1'],
      ['user', '—'],
      ['wallet', undefined],
      ['brand', '—'],
      ['number', number],
      ['cvc', undefined],
      ['expires', undefined],
    ]
    expect(virtualCardCard({id: 'vc_1', last4: '4242', status: 'frozen', currency: 'EUR'})).toEqual([
      ...empty('•••• •••• •••• 4242'),
      ['status', 'frozen'],
      ['label', undefined],
      ['created', '—'],
      ['currency', 'EUR'],
    ])
    expect(virtualCardCard({id: 'vc_1'})).toEqual([
      ...empty('—'),
      ['status', '—'],
      ['label', undefined],
      ['created', '—'],
    ])
  })

  it('shows a wallet payment, and the amounts that came besides in its currency', () => {
    const payment = {
      id: 'wp_1',
      status: 'completed',
      amount: 1234,
      currency: 'USD',
      userId: 'u',
      walletId: 'w',
      transactionId: 't',
      merchantName: 'm',
      createdAt: 'c',
      fee_amount: 30,
      extra: {a: 1},
    }
    expect(walletPaymentCard(payment)).toEqual([
      ['id', 'wp_1'],
      ['status', 'completed'],
      ['amount', '12.34 USD'],
      ['user', 'u'],
      ['wallet', 'w'],
      ['transaction', 't'],
      ['merchant', 'm'],
      ['created', 'c'],
      ['fee amount', '0.30 USD'],
      ['extra', '{"a":1}'],
    ])
    expect(walletPaymentCard({})).toEqual([
      ['id', '—'],
      ['status', '—'],
      ['amount', '—'],
      ['user', '—'],
      ['wallet', undefined],
      ['transaction', undefined],
      ['merchant', undefined],
      ['created', '—'],
    ])
  })

  it('says whether a payment is eligible, and names no wallet when it came as null', () => {
    const eligible = {
      eligible: true,
      amount: 100,
      available: 50,
      currency: 'EUR',
      walletId: null,
      reasons: ['a', 'b'],
      limit: 900,
    }
    expect(eligibilityCard(eligible)).toEqual([
      ['eligible', 'yes'],
      ['amount', '1.00 EUR'],
      ['available', '0.50 EUR'],
      ['wallet', 'none'],
      ['reasons', 'a, b'],
      ['limit', '9.00 EUR'],
    ])
    expect(eligibilityCard({eligible: false, walletId: 'w', reasons: 'none left'})).toEqual([
      ['eligible', 'no'],
      ['amount', '—'],
      ['available', '—'],
      ['wallet', 'w'],
      ['reasons', 'none left'],
    ])
    expect(eligibilityCard({})).toEqual([
      ['eligible', '—'],
      ['amount', '—'],
      ['available', '—'],
      ['wallet', '—'],
      ['reasons', undefined],
    ])
  })

  it('shows a transfer between users with their wallets where given', () => {
    const transfer = {
      id: 'p_1',
      status: 'completed',
      amount: 500,
      currency: 'USD',
      fromUserId: 'u1',
      fromWalletId: 'w1',
      toUserId: 'u2',
      note: 'hi',
      transactionIds: ['t1', 't2'],
      createdAt: 'c',
      fee: 10,
    }
    expect(p2pCard(transfer)).toEqual([
      ['id', 'p_1'],
      ['status', 'completed'],
      ['amount', '5.00 USD'],
      ['from', 'u1 (w1)'],
      ['to', 'u2'],
      ['note', 'hi'],
      ['transactions', 't1, t2'],
      ['created', 'c'],
      ['fee', '0.10 USD'],
    ])
    expect(p2pCard({transactionIds: 'x'})).toEqual([
      ['id', '—'],
      ['status', '—'],
      ['amount', '—'],
      ['from', '—'],
      ['to', '—'],
      ['note', undefined],
      ['transactions', undefined],
      ['created', '—'],
    ])
  })
})
