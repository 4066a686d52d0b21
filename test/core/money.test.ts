import {describe, expect, it} from 'vitest'
import {formatMinor, parseAmount} from '../../src/core/index.js'

describe('parseAmount', () => {
  it.each([
    ['1234', 'USD', 1234],
    ['12.34USD', undefined, 1234],
    ['12.34 usd', 'USD', 1234],
    ['12.3USD', undefined, 1230],
    ['100JPY', undefined, 100],
    ['1.5USDC', undefined, 1_500_000],
    ['0.000001BTC', undefined, 100],
    ['0.001ETH', undefined, 1_000_000_000_000_000],
    ['1_000', undefined, 1000],
  ])('reads %s exactly', (text, currency, expected) => {
    expect(parseAmount(text, currency).amount).toBe(expected)
  })

  it('never rounds through floating point', () => {
    // 0.29 * 100 is 28.999999999999996 in floating point
    expect(parseAmount('0.29USD').amount).toBe(29)
    expect(parseAmount('19.99USD').amount).toBe(1999)
  })

  it.each([
    ['1.005USD', /2 decimal places/],
    ['1.5JPY', /0 decimal places/],
    ['12.34', /needs a supported currency/],
    ['abc', /not an amount/],
    ['10EUR', /is in EUR but the currency is USD/],
    ['99999999999999999', /too large/],
  ])('rejects %s', (text, message) => {
    expect(() => parseAmount(text, text === '10EUR' ? 'USD' : undefined)).toThrow(message)
  })
})

describe('formatMinor', () => {
  it.each([
    [1234, 'USD', '12.34'],
    [5, 'USD', '0.05'],
    [-123456, 'EUR', '-1,234.56'],
    [1000, 'JPY', '1,000'],
    [1_500_000, 'USDC', '1.500000'],
  ])('formats %d %s as %s', (amount, currency, text) => {
    expect(formatMinor(amount, currency)).toBe(text)
  })
})
