import {describe, expect, it} from 'vitest'
import {extraRows, known, majorMoney, money, shown, text} from '../../src/cli/rendering/field-readers.js'
import {renderCard} from '../../src/cli/rendering/output.js'
import {userCard, walletCard} from '../../src/cli/views/resource-views.js'

describe('reading what a service sent, for a person', () => {
  it('formats amounts exactly, and shows as they came the ones that are not integers of a currency', () => {
    expect(money(123456, 'USD')).toBe('1,234.56 USD')
    expect(money(10n ** 20n, 'ETH')).toBe('100.000000000000000000 ETH')
    expect(money(10.5, 'USD')).toBe('10.5 USD')
    expect(money('12', 'USD')).toBe('12 USD')
    expect(money(undefined, 'USD')).toBe('—')
    expect(majorMoney(1.3, 'USD')).toBe('1.30 USD')
    expect(majorMoney(1.3, undefined)).toBe('1.3')
  })

  it('shows amount fields in major units, and other numbers as they came', () => {
    for (const key of ['amount', 'refundedAmount', 'refund_amount', 'fee', 'total', 'limit', 'maximum'])
      expect(shown(key, 123456, 'USD')).toBe('1,234.56 USD')
    for (const key of ['amounts', 'amount_due', 'fees', 'installments', 'limits', '_amountX', 'paid'])
      expect(shown(key, 123456, 'USD')).toBe('123456')
    expect(extraRows({id: 'x', cashback_amount: 250, visits: 250}, ['id'], 'EUR')).toEqual([
      ['cashback amount', '2.50 EUR'],
      ['visits', '250'],
    ])
  })

  it('turns any value into text, and a missing known field into —', () => {
    expect(text({a: 1, b: [true]})).toBe('{"a":1,"b":[true]}')
    expect(text(null)).toBeUndefined()
    expect(known(undefined)).toBe('—')
    expect(extraRows({id: 'x', tier_level: 'gold', gone: null}, ['id'])).toEqual([['tier level', 'gold']])
  })

  it('renders a user of only an id, and a wallet with a fractional balance, without throwing', () => {
    const user = renderCard(userCard({id: 'usr_1', status: 'active'}))
    expect(user).toMatch(/id\s+usr_1/)
    expect(user).toMatch(/email\s+—/)
    expect(user).toMatch(/status\s+active/)
    const balance = {available: 0.5, pending: 0, reserved: 0, total: 0.5, currency: 'USD'}
    const wallet = {
      id: 'wal_1',
      userId: 'usr_1',
      currency: 'USD',
      balance,
      status: 'active',
      limits: {daily: 1, monthly: 1, transaction: 1},
      createdAt: 't',
      updatedAt: 't',
    }
    expect(renderCard(walletCard(wallet))).toMatch(/available\s+0\.5 USD/)
  })
})
