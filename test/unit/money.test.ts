import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {MINOR_UNITS, SUPPORTED_CURRENCIES} from '../../src/contract/index.js'
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

  it('keeps amounts beyond 2^53 exact as bigint', () => {
    expect(parseAmount('1.234567890123456789ETH').amount).toBe(1_234_567_890_123_456_789n)
    expect(parseAmount('99999999999999999').amount).toBe(99_999_999_999_999_999n)
    expect(parseAmount('1NEAR').amount).toBe(10n ** 24n)
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

describe('amounts, property-style', () => {
  it('reads any decimal of every currency back exactly, and formats it as written', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SUPPORTED_CURRENCIES),
        fc.bigInt({min: 0n, max: 10n ** 30n}),
        (currency, minor) => {
          const digits = MINOR_UNITS[currency]
          const text = minor.toString().padStart(digits + 1, '0')
          const decimal = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`
          const parsed = parseAmount(`${decimal}${currency}`).amount
          expect(BigInt(parsed)).toBe(minor)
          expect(typeof parsed === 'number').toBe(minor <= BigInt(Number.MAX_SAFE_INTEGER))
          expect(formatMinor(parsed, currency).replaceAll(',', '')).toBe(decimal)
        },
      ),
      {numRuns: 2000},
    )
  })

  it('groups the whole part by thousands, as en-US writes the number', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SUPPORTED_CURRENCIES),
        fc.bigInt({min: -(10n ** 30n), max: 10n ** 30n}),
        (currency, minor) => {
          const whole = formatMinor(minor, currency).split('.')[0]!
          const major = (minor < 0n ? -minor : minor) / 10n ** BigInt(MINOR_UNITS[currency])
          expect(whole).toBe(`${minor < 0n ? '-' : ''}${major.toLocaleString('en-US')}`)
        },
      ),
      {numRuns: 2000},
    )
  })

  it('refuses more decimals than the currency has', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SUPPORTED_CURRENCIES), (currency) => {
        const tooPrecise = `1.${'1'.repeat(MINOR_UNITS[currency] + 1)}${currency}`
        expect(() => parseAmount(tooPrecise)).toThrow(/decimal places/)
      }),
    )
  })
})
