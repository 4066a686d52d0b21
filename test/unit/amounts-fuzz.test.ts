import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {amountFrom, currencyFrom} from '../../src/cli/amounts.js'
import {parseDuration} from '../../src/cli/duration.js'
import {MINOR_UNITS, SUPPORTED_CURRENCIES} from '../../src/contract/index.js'
import {PayctlError, parseAmount} from '../../src/core/index.js'

/**
 * Bad input, in process: whatever a user types as an amount, a currency or a duration, the
 * parsers answer a value that is exactly right or a usage error with its code that quotes the
 * input — never another exception, never a rounded or negative amount.
 */

const currencyText = fc.oneof(
  fc.constantFrom(...SUPPORTED_CURRENCIES),
  fc.constantFrom(...SUPPORTED_CURRENCIES).map((c) => c.toLowerCase()),
  fc.string({minLength: 0, maxLength: 6}),
  fc.stringMatching(/^[A-Za-z]{1,7}$/),
)

// Text shaped like an amount, so that the runs explore the parser's edges, not only its first check.
const amountLike = fc
  .record({
    space: fc.constantFrom('', ' ', '  ', '\t'),
    sign: fc.constantFrom('', '-', '+', '--'),
    whole: fc.oneof(
      fc.stringMatching(/^\d{1,3}$/),
      fc.stringMatching(/^[\d_]{1,40}$/),
      fc.bigInt({min: 0n, max: 10n ** 40n}).map(String),
      fc.constantFrom('', '0', '00', '1e3', 'Infinity', 'NaN', '0x10', '١٢٣'),
    ),
    dot: fc.constantFrom('', '.', '..', ','),
    fraction: fc.oneof(
      fc.stringMatching(/^\d{0,30}$/),
      fc.constantFrom('', '5', '05', '999999999999999999999999'),
    ),
    gap: fc.constantFrom('', ' '),
    suffix: fc.oneof(fc.constant(''), currencyText),
  })
  .map((p) => `${p.space}${p.sign}${p.whole}${p.dot}${p.fraction}${p.gap}${p.suffix}${p.space}`)

const anyText = fc.oneof(amountLike, fc.string({maxLength: 40}), fc.string({unit: 'grapheme', maxLength: 20}))

/** Run `parse`; it either returns or throws the one usage error expected, quoting what it read. */
function outcome<T>(parse: () => T, code: string, quoted: string): {ok: true; value: T} | {ok: false} {
  try {
    return {ok: true, value: parse()}
  } catch (err) {
    expect(err, String(err)).toBeInstanceOf(PayctlError)
    const e = err as PayctlError
    expect(e.kind).toBe('usage')
    expect(e.exitCode).toBe(2)
    expect([code, 'MISSING_FLAG']).toContain(e.code)
    expect(e.message.length).toBeGreaterThan(10)
    if (
      e.code === code &&
      quoted.trim() !== '' &&
      !/needs a supported currency|greater than zero|longer than zero/.test(e.message)
    )
      expect(e.message).toContain(quoted)
    return {ok: false}
  }
}

/** The exact smallest-unit value a decimal text stands for, computed independently (strings only). */
function expected(text: string, currency: string): bigint | undefined {
  const m = /^\s*(-?)(\d[\d_]*)(?:\.(\d+))?\s*$/.exec(text)
  if (!m) return undefined
  const digits = MINOR_UNITS[currency as keyof typeof MINOR_UNITS]
  const fraction = m[3] ?? ''
  if (fraction.length > digits) return undefined
  const value = BigInt(m[2]!.replaceAll('_', '') + fraction.padEnd(digits, '0'))
  return m[1] ? -value : value
}

describe('amount parsing against random input', () => {
  it('parseAmount returns an exact integer or an INVALID_AMOUNT error quoting the text', () => {
    fc.assert(
      fc.property(anyText, fc.option(currencyText, {nil: undefined}), (text, currency) => {
        const r = outcome(() => parseAmount(text, currency), 'INVALID_AMOUNT', text)
        if (!r.ok) return
        const {amount, currency: cur} = r.value
        if (typeof amount === 'number') expect(Number.isSafeInteger(amount), `${text} → ${amount}`).toBe(true)
        else
          expect(amount > BigInt(Number.MAX_SAFE_INTEGER) || amount < -BigInt(Number.MAX_SAFE_INTEGER)).toBe(
            true,
          )
        // With a known currency the value is exactly what the decimal says.
        const suffix = /([A-Za-z]{3,5})\s*$/.exec(text)?.[1]?.toUpperCase()
        if (suffix && cur && (SUPPORTED_CURRENCIES as readonly string[]).includes(cur)) {
          const body = text.trimEnd().slice(0, -suffix.length)
          const want = expected(body, cur)
          if (want !== undefined) expect(BigInt(amount)).toBe(want)
        }
      }),
      {numRuns: 4000},
    )
  })

  it('an --amount flag is always a positive exact integer, or a usage error naming what is wrong', () => {
    fc.assert(
      fc.property(
        anyText,
        fc.option(fc.constantFrom(...SUPPORTED_CURRENCIES, 'XYZ', 'usd'), {nil: undefined}),
        fc.boolean(),
        (text, flagCurrency, decimal) => {
          const currency = currencyFrom(flagCurrency, text)
          const r = outcome(() => amountFrom(text, currency?.toUpperCase(), decimal), 'INVALID_AMOUNT', text)
          if (!r.ok) return
          const amount = BigInt(r.value)
          expect(
            amount > 0n,
            `--amount ${JSON.stringify(text)}${decimal ? ' --decimal' : ''} → ${amount}`,
          ).toBe(true)
          if (typeof r.value === 'number') expect(Number.isSafeInteger(r.value)).toBe(true)
          if (
            decimal &&
            currency &&
            (SUPPORTED_CURRENCIES as readonly string[]).includes(currency.toUpperCase())
          ) {
            const want = expected(text, currency.toUpperCase())
            if (want !== undefined) expect(amount).toBe(want)
          }
        },
      ),
      {numRuns: 4000},
    )
  })

  it('currencyFrom never throws and yields an upper-case code or nothing', () => {
    fc.assert(
      fc.property(
        fc.option(anyText, {nil: undefined}),
        fc.option(anyText, {nil: undefined}),
        (flag, amount) => {
          const c = currencyFrom(flag, amount)
          if (c !== undefined) expect(c).toBe(c.toUpperCase())
        },
      ),
      {numRuns: 2000},
    )
  })

  it('a duration is a whole, finite, positive number of seconds, or INVALID_DURATION quoting it', () => {
    const durationLike = fc
      .record({
        n: fc.oneof(
          fc.nat().map(String),
          fc.stringMatching(/^\d{1,400}$/),
          fc.constantFrom('', '-1', '1.5', '0'),
        ),
        unit: fc.constantFrom('', 's', 'm', 'h', 'd', 'D', 'w', 'ms', ' s'),
      })
      .map(({n, unit}) => `${n}${unit}`)
    fc.assert(
      fc.property(fc.oneof(durationLike, fc.string({maxLength: 12})), (text) => {
        const r = outcome(() => parseDuration(text, 'ttl'), 'INVALID_DURATION', text)
        if (!r.ok) return
        expect(Number.isSafeInteger(r.value), `${text} → ${r.value}`).toBe(true)
        expect(r.value).toBeGreaterThan(0)
      }),
      {numRuns: 3000},
    )
  })
})
