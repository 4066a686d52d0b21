import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {minorToMajorText} from '../../src/contract/money/amounts.js'
import {parseRequestJson} from '../../src/sandbox/http/json.js'
import {type Reply, start, type TestSandbox} from './helpers.js'
import {data, wallet} from './money-helpers.js'

/**
 * Number literals in every spelling JSON allows, sent to every amount field of every request body:
 * each is refused with a 400 VALIDATION_ERROR naming the field, or read as exactly the value written,
 * within the documented range (minor units: an integer of at most 80 digits; major units: above 0,
 * at most 9007199254740991, no more decimals than the currency has).
 */
const LITERALS = [
  '1E2',
  '1e2',
  '4.35e0',
  '1e15',
  '1.5e18',
  '1e20',
  '1e79',
  '1e80',
  '1e81',
  '1e200',
  '1e300',
  '1e307',
  '1e308',
  '1e400',
  '123456789e200',
  '-1e300',
  '1.5e-300',
  '1e-400',
  '-0',
  '99999999999999999999.99',
  '0.30000000000000001',
  '1.0000000000000000001',
]

type Kind = 'positive minor' | 'non-negative minor' | 'major USD'

/** The exact value of a JSON number literal: `coefficient` × 10^`power`. */
function exactValue(literal: string): {coefficient: bigint; power: number} {
  const [, mantissa = '', exponent = '0'] = /^(-?[\d.]+)(?:[eE]([+-]?\d+))?$/.exec(literal)!
  const [whole = '', fraction = ''] = mantissa.split('.')
  return {coefficient: BigInt(whole + fraction), power: Number(exponent) - fraction.length}
}

/** `coefficient` × 10^`shift` when that is an integer, else undefined. */
function scaled(literal: string, shift: number): bigint | undefined {
  const {coefficient, power} = exactValue(literal)
  const p = power + shift
  if (p >= 0) return coefficient * 10n ** BigInt(p)
  const unit = 10n ** BigInt(-p)
  return coefficient % unit === 0n ? coefficient / unit : undefined
}

/** What the sandbox must answer for `literal` in a field of `kind`: the value it reads, or a refusal. */
function expected(kind: Kind, literal: string): string | 'refused' {
  if (kind === 'major USD') {
    const cents = scaled(literal, 2)
    if (cents === undefined || cents <= 0n || cents > BigInt(Number.MAX_SAFE_INTEGER) * 100n) return 'refused'
    const significant = exactValue(literal).coefficient.toString().replace(/^0+/, '').replace(/0+$/, '')
    return significant.length > 15 ? 'refused' : minorToMajorText(cents, 'USD')
  }
  const n = scaled(literal, 0)
  if (n === undefined || n.toString().replace('-', '').length > 80) return 'refused'
  if (kind === 'positive minor' ? n <= 0n : n < 0n) return 'refused'
  return n.toString()
}

/** The response body with every number as the literal the sandbox wrote. */
// biome-ignore lint/suspicious/noExplicitAny: navigated by the field's path
function asWritten(text: string): any {
  const reviver = (_key: string, value: unknown, context?: {source?: string}) =>
    typeof value === 'number' ? context?.source : value
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown)
}

interface Field {
  name: string
  kind: Kind
  /** The path of the field in the request, as an issue names it. */
  path: string
  send: (literal: string) => Promise<Reply>
  /** Where the answer shows the amount read, when it succeeds. */
  shown: string
}

test('the request reader gives each literal its value, or one no number field takes', () => {
  expect(
    parseRequestJson(
      '{"a":1e300,"b":-1e81,"c":123456789e200,"d":0.30000000000000001,"e":1e-400,"f":1E2,"g":-0,' +
        '"h":1.5e-300,"i":1e20,"j":"1e300","k":[1.0000000000000000001,1e80,1e79]}',
    ),
  ).toEqual({
    a: Infinity,
    b: -Infinity,
    c: Infinity,
    d: Number.NaN,
    e: Number.NaN,
    f: 100,
    g: -0,
    h: 1.5e-300,
    i: 10n ** 20n,
    j: '1e300',
    k: [Number.NaN, Infinity, 10n ** 79n],
  })
})

describe('number literals in amount fields', () => {
  let t: TestSandbox
  const fields: Field[] = []
  let saver: string
  let n = 0
  beforeAll(async () => {
    t = await start({rateLimit: 'off'})
    const payer = await t.user()
    const payee = await t.user({email: 'payee@example.com'})
    const usd = await wallet(t, 'USD', 100_000_000, payer)
    await wallet(t, 'USD', 0, payee)
    const eth = await wallet(t, 'ETH', 0)
    const deposit = data(
      await t.post('/v1/transactions', {
        amount: 500_000,
        currency: 'USD',
        method: 'card',
        paymentMethodId: 'pm_card_visa',
        destinationWalletId: usd,
      }),
    )
    const send = (method: string, path: string, body: string) => t.call(method, path, {raw: body})
    const add = (field: Field) => fields.push(field)
    add({
      name: 'POST /v1/wallets initialBalance',
      kind: 'non-negative minor',
      path: 'initialBalance',
      shown: 'balance.available',
      send: async (l) =>
        send('POST', '/v1/wallets', `{"userId":"${await t.user()}","currency":"ETH","initialBalance":${l}}`),
    })
    for (const limit of ['transaction', 'daily', 'monthly']) {
      add({
        name: `PATCH /v1/wallets/{id} limits.${limit}`,
        kind: 'positive minor',
        path: `limits.${limit}`,
        shown: `limits.${limit}`,
        // All three at once, so that transaction <= daily <= monthly holds for any value.
        send: (l) =>
          send('PATCH', `/v1/wallets/${eth}`, `{"limits":{"transaction":${l},"daily":${l},"monthly":${l}}}`),
      })
    }
    const amountOf = (name: string, method: string, path: string, body: (l: string) => string) =>
      add({
        name,
        kind: 'positive minor',
        path: 'amount',
        shown: 'amount',
        send: (l) => send(method, path, body(l)),
      })
    amountOf(
      'POST /v1/transactions amount',
      'POST',
      '/v1/transactions',
      (l) => `{"amount":${l},"currency":"USD","method":"wire","destinationWalletId":"${usd}"}`,
    )
    amountOf(
      'POST /v1/transactions/{id}/refund amount',
      'POST',
      `/v1/transactions/${deposit.id}/refund`,
      (l) => `{"amount":${l}}`,
    )
    amountOf(
      'POST /v1/bnplsvc/prequalify amount',
      'POST',
      '/v1/bnplsvc/prequalify',
      (l) => `{"userId":"${payer}","amount":${l}}`,
    )
    amountOf(
      'POST /v1/bnplsvc/payments amount',
      'POST',
      '/v1/bnplsvc/payments',
      (l) => `{"userId":"${payer}","amount":${l},"merchantName":"Shop"}`,
    )
    amountOf(
      'POST /v1/walletsvc/payments/check-eligibility amount',
      'POST',
      '/v1/walletsvc/payments/check-eligibility',
      (l) => `{"userId":"${payer}","amount":${l}}`,
    )
    amountOf(
      'POST /v1/walletsvc/payments amount',
      'POST',
      '/v1/walletsvc/payments',
      (l) => `{"userId":"${payer}","amount":${l}}`,
    )
    amountOf(
      'POST /v1/walletsvc/p2p/send amount',
      'POST',
      '/v1/walletsvc/p2p/send',
      (l) => `{"fromUserId":"${payer}","toUserId":"${payee}","amount":${l}}`,
    )
    saver = await t.user({email: 'saver@example.com'})
    const majorOf = (
      name: string,
      method: string,
      path: string,
      field: string,
      body: (l: string) => string,
    ) => add({name, kind: 'major USD', path: field, shown: field, send: (l) => send(method, path, body(l))})
    majorOf(
      'PUT /v1/users/{id}/roundup-settings max_roundup_amount',
      'PUT',
      `/v1/users/${saver}/roundup-settings`,
      'max_roundup_amount',
      (l) => `{"enabled":true,"multiplier":1,"max_roundup_amount":${l}}`,
    )
    majorOf(
      'PUT /v1/roundupsvc/…/settings max_roundup_amount',
      'PUT',
      `/v1/roundupsvc/users/${saver}/roundups/settings`,
      'max_roundup_amount',
      (l) => `{"max_roundup_amount":${l}}`,
    )
    majorOf(
      'POST /v1/roundupsvc/…/enable max_roundup_amount',
      'POST',
      `/v1/roundupsvc/users/${saver}/roundups/enable`,
      'max_roundup_amount',
      (l) => `{"max_roundup_amount":${l}}`,
    )
    majorOf(
      'POST /v1/transactions/process amount',
      'POST',
      '/v1/transactions/process',
      'amount',
      (l) => `{"user_id":"${saver}","amount":${l},"merchant_name":"Shop","transaction_id":"pos_${++n}"}`,
    )
  })
  afterAll(() => t.close())

  test('each literal is refused as a VALIDATION_ERROR naming the field, or read as exactly its value', async () => {
    const wrong: string[] = []
    let read = 0
    for (const field of fields) {
      for (const literal of LITERALS) {
        const want = expected(field.kind, literal)
        const res = await field.send(literal)
        const what = `${field.name} = ${literal}: ${res.status} ${res.text.slice(0, 300)}`
        if (want === 'refused') {
          const refused =
            res.status === 400 &&
            res.body?.success === false &&
            res.body.error.code === 'VALIDATION_ERROR' &&
            res.body.error.details.issues.some((i: {path: string}) => i.path === field.path)
          if (!refused) wrong.push(`expected a refusal: ${what}`)
        } else if (res.status < 300) {
          const shown = field.shown.split('.').reduce((o, k) => o?.[k], asWritten(res.text).data)
          if (shown !== want) wrong.push(`expected ${want}: ${what}`)
          read++
        } else if (res.body?.error?.code === 'VALIDATION_ERROR') {
          // A business refusal (a limit, funds) is fine; a value in range is never malformed.
          wrong.push(`expected ${want} read: ${what}`)
        }
      }
    }
    expect(wrong).toEqual([])
    // Values in range were read and shown back on every kind of field, not only refused.
    expect(read).toBeGreaterThan(30)
  })

  test('a refusal says why: out of range, or more digits than a number holds', async () => {
    const messageOf = async (name: string, literal: string) => {
      const res = await fields.find((f) => f.name === name)!.send(literal)
      return res.body.error.details.issues[0].message as string
    }
    const cap = 'PUT /v1/roundupsvc/…/settings max_roundup_amount'
    const amount = 'POST /v1/transactions amount'
    for (const literal of ['1e20', '1e81', '1e300', '-1e300']) {
      expect(await messageOf(cap, literal)).toMatch(/^Out of range: at most 9007199254740991/)
    }
    for (const literal of ['0.30000000000000001', '99999999999999999999.99', '1e-400']) {
      expect(await messageOf(cap, literal)).toMatch(/^Has more than 15 significant digits/)
    }
    for (const literal of ['1e81', '1e300', '123456789e200']) {
      expect(await messageOf(amount, literal)).toMatch(/^Out of range: an amount has at most 80 digits/)
    }
    for (const literal of ['1.0000000000000000001', '99999999999999999999.99', '1e-400', '1.5e-300']) {
      expect(await messageOf(amount, literal)).toMatch(/^Expected an integer amount/)
    }
  })

  test('nothing beyond the documented ranges is stored: a refused cap leaves the cap as it was', async () => {
    const user = await t.user({email: 'capped@example.com'})
    const path = `/v1/roundupsvc/users/${user}/roundups/settings`
    expect((await t.call('PUT', path, {raw: '{"max_roundup_amount":7.5}'})).status).toBe(200)
    for (const literal of ['1e20', '1e81', '1e300', '123456789e200', '99999999999999999999.99']) {
      await t.call('PUT', path, {raw: `{"max_roundup_amount":${literal}}`})
      expect(asWritten((await t.get(path)).text).data.max_roundup_amount, literal).toBe('7.50')
    }
    // An amount in the smallest unit has at most 80 digits.
    for (const list of ['/v1/wallets?limit=100', '/v1/transactions?limit=100']) {
      expect((await t.get(list)).text).not.toMatch(/\d{81}/)
    }
  })
})
