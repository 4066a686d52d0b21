import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {amountFrom} from '../../src/cli/amounts.js'
import {majorFlag} from '../../src/cli/roundups-flags.js'
import {type PayctlClient, PayctlError} from '../../src/core/index.js'
import {loadFixture} from '../../src/core/seed/index.js'
import {plan, seed} from '../../src/core/seed/runner.js'

const dir = mkdtempSync(join(tmpdir(), 'payctl-fixture-'))
let n = 0
function file(text: string, ext = 'yaml'): string {
  const path = join(dir, `f${n++}.${ext}`)
  writeFileSync(path, text)
  return path
}

describe('loadFixture', () => {
  it('expands counts, fills {{i}}/{{n}} and env vars, and finds references', async () => {
    const f = await loadFixture(
      file(`
users:
  u:
    count: 3
    email: u{{n}}@\${env.DOMAIN:-example.test}
    first_name: U{{i}}
    last_name: X
wallets:
  w:
    count: 3
    user: \${users.u[{{i}}].id}
    currency: USD
`),
      {},
    )
    expect(f.records).toHaveLength(6)
    expect(f.records[2]).toMatchObject({
      kind: 'users',
      name: 'u[2]',
      fields: {email: 'u3@example.test', first_name: 'U2'},
    })
    expect(f.records[4]).toMatchObject({kind: 'wallets', name: 'w[1]', dependsOn: ['users.u[1]']})
    expect(plan(f).map((s) => [s.wave, s.kind, s.names.length])).toEqual([
      [0, 'users', 3],
      [1, 'wallets', 3],
    ])
  })

  it('finds no environment variable an object inherits: ${env.toString} is not set', async () => {
    const text = (ref: string) =>
      file(`users:\n  a:\n    email: a@x.test\n    first_name: A\n    last_name: ${ref}\n`)
    for (const env of [{}, process.env]) {
      await expect(loadFixture(text('${env.toString}'), env)).rejects.toThrow(
        'environment variable toString is not set',
      )
      const f = await loadFixture(text('${env.constructor:-Smith}'), env)
      expect(f.records[0]!.fields.last_name).toBe('Smith')
    }
  })

  it('reads JSON fixtures too', async () => {
    const f = await loadFixture(
      file('{"users": {"a": {"email": "a@x.test", "first_name": "A", "last_name": "B"}}}', 'json'),
    )
    expect(f.records).toHaveLength(1)
  })

  it.each([
    ['users:\n  a:\n    email: a@x.test\n    first_name: A\n', /:2:\d+: users\.a\.last_name: /],
    [
      'users:\n  a:\n    email: a@x.test\n    first_name: A\n    last_name: B\n    nickname: C\n',
      /:2:\d+: users\.a: Unrecognized key: "nickname"/,
    ],
    [
      'wallets:\n  w:\n    user: ${users.nobody.id}\n    currency: USD\n',
      /:2:\d+: wallets\.w: \$\{users\.nobody\.id\} names no record/,
    ],
    [
      'users:\n  a:\n    email: a@x.test\n    first_name: [1]\n    last_name: B\n',
      /:4:5: users\.a\.first_name: /,
    ],
    ['transactions:\n  t:\n    method: cheque\n    amount: 5\n', /:3:5: transactions\.t\.method: /],
    ['users: [1, 2\n', /:\d+:\d+: /],
    [
      'wallets:\n  w:\n    user: ${env.NOT_SET_ANYWHERE}\n    currency: USD\n',
      /environment variable NOT_SET_ANYWHERE is not set/,
    ],
    [
      'wallets:\n  a:\n    user: ${wallets.b.id}\n    currency: USD\n  b:\n    user: ${wallets.a.id}\n    currency: USD\n',
      /circle: wallets\.a → wallets\.b → wallets\.a/,
    ],
    [
      'users:\n  u:\n    count: 2\n    email: u{{i}}@x.test\n    first_name: A\n    last_name: B\nwallets:\n  w:\n    user: ${users.u[2].id}\n    currency: USD\n',
      /users\.u\[2\] is past its count of 2/,
    ],
    ['payments: {}\n', /Unrecognized key: "payments"/],
  ])('rejects a bad fixture with file, line and field: %s', async (text, message) => {
    const path = file(text)
    await expect(loadFixture(path, {})).rejects.toThrow(message)
    await expect(loadFixture(path, {})).rejects.toThrow(path)
  })
})

/** What a seed run sends for a fixture's records, by endpoint, through a client that answers every call. */
async function sent(path: string): Promise<{id: string; body: Record<string, unknown>}[]> {
  const fixture = await loadFixture(path, {})
  const calls: {id: string; body: Record<string, unknown>}[] = []
  const client = {
    profile: {},
    call: async (id: string, args: {body: Record<string, unknown>}) => {
      calls.push({id, body: args.body})
      return {id: `x_${calls.length}`}
    },
  } as unknown as PayctlClient
  await seed(client, fixture, {concurrency: 1})
  return calls
}

describe('money values in a fixture', () => {
  // initial_balance is on line 7, column 5.
  const wallet = (value: string, currency = 'USD') =>
    file(
      `users:\n  u: {email: u@x.test, first_name: U, last_name: V}\nwallets:\n  w:\n    user: \${users.u.id}\n    currency: ${currency}\n    initial_balance: ${value}\n`,
    )
  const balanceSent = async (path: string) =>
    (await sent(path)).find((c) => c.id === 'createWallet')!.body.initialBalance

  it.each([
    ['10', 'USD', 10],
    ['0', 'USD', 0],
    ['1_000', 'USD', 1000],
    ['"10.50USD"', 'USD', 1050],
    ['10.50USD', 'USD', 1050],
    ['10.50 USD', 'USD', 1050],
    ['"1050"', 'USD', 1050],
    ['1500', 'JPY', 1500],
    ['1234567890123456789012', 'ETH', 1234567890123456789012n],
    ['1.5ETH', 'ETH', 1500000000000000000n],
  ])('reads %s (%s) as --amount reads it: %s in the smallest unit', async (value, currency, minor) => {
    expect(await balanceSent(wallet(value, currency))).toBe(minor)
  })

  it.each([
    [
      '10.00',
      /:7:5: wallets\.w\.initial_balance: "10\.00" has decimals but no currency, .*: write 1000 \(the smallest unit\) or 10\.00USD$/,
    ],
    [
      '10.50',
      /:7:5: wallets\.w\.initial_balance: "10\.50" has decimals .*: write 1050 \(the smallest unit\) or 10\.50USD$/,
    ],
    [
      '0.5',
      /:7:5: wallets\.w\.initial_balance: "0\.5" has decimals .*: write 50 \(the smallest unit\) or 0\.5USD$/,
    ],
    [
      '"10.50"',
      /:7:5: wallets\.w\.initial_balance: "10\.50" has decimals .*: write 1050 \(the smallest unit\) or 10\.50USD$/,
    ],
    [
      '1e3',
      /:7:5: wallets\.w\.initial_balance: "1e3" is not an amount: use an integer in the smallest unit \(1234\) or a decimal with its currency \(12\.34USD\)$/,
    ],
    ['0x10', /:7:5: wallets\.w\.initial_balance: "0x10" is not an amount: /],
    ['+5', /:7:5: wallets\.w\.initial_balance: "\+5" is not an amount: /],
    ['-5', /:7:5: wallets\.w\.initial_balance: "-5" must be 0 or more$/],
    ['10.50EUR', /:7:5: wallets\.w\.initial_balance: amount "10\.50EUR" is in EUR but the currency is USD$/],
    ['10.505USD', /:7:5: wallets\.w\.initial_balance: USD has 2 decimal places; "10\.505USD" has 3$/],
    [
      'true',
      /:7:5: wallets\.w\.initial_balance: an amount: an integer in the smallest unit \(1234\) or a decimal with its currency \(12\.34USD\)$/,
    ],
  ])('refuses %s as --amount does, at file:line:column with the forms that work', async (value, message) => {
    const path = wallet(value)
    await expect(loadFixture(path, {})).rejects.toThrow(message)
    await expect(loadFixture(path, {})).rejects.toThrow(`${path}:7:5: `)
  })

  it('reads the number literals of a JSON fixture from their text too', async () => {
    const json = (value: string) =>
      file(
        `{"users": {"u": {"email": "u@x.test", "first_name": "U", "last_name": "V"}},\n "wallets": {"w": {"user": "\${users.u.id}", "currency": "ETH", "initial_balance": ${value}}}}\n`,
        'json',
      )
    await expect(loadFixture(json('10.00'), {})).rejects.toThrow(
      /:2:\d+: wallets\.w\.initial_balance: "10\.00" has decimals/,
    )
    expect(await balanceSent(json('1234567890123456789012'))).toBe(1234567890123456789012n)
  })

  it('holds every money field of every kind to its command-line rule', async () => {
    const refused = async (text: string, message: RegExp) => {
      const path = file(text)
      await expect(loadFixture(path, {})).rejects.toThrow(message)
    }
    const transaction = (fields: string) =>
      `transactions:\n  t: {method: card, payment_method: pm_x, to: wal_x, ${fields}}\n`
    await refused(
      transaction('amount: 0, currency: USD'),
      /:2:\d+: transactions\.t\.amount: "0" must be greater than zero/,
    )
    await refused(
      transaction('amount: -500, currency: USD'),
      /transactions\.t\.amount: "-500" must be greater than zero/,
    )
    await refused(
      transaction('amount: 12.5, currency: USD'),
      /transactions\.t\.amount: "12\.5" has decimals .*write 1250 \(the smallest unit\) or 12\.5USD/,
    )
    await refused(
      transaction('amount: 500'),
      /:2:3: transactions\.t\.currency: missing: a transaction needs currency/,
    )
    const bnpl = (amount: string) =>
      `bnpl_payments:\n  b: {user: usr_x, merchant_name: Shop, amount: ${amount}}\n`
    await refused(
      bnpl('120.00'),
      /bnpl_payments\.b\.amount: "120\.00" has decimals .*write 12000 \(the smallest unit\) or 120\.00USD/,
    )
    const purchase = (amount: string) =>
      `purchases:\n  p: {user: usr_x, merchant_name: Cafe, amount: ${amount}}\n`
    await refused(
      purchase('4.35 dollars'),
      /purchases\.p\.amount: "4\.35 dollars" is not a decimal amount in major units: .*e\.g\. 5, 4\.35 or 4\.35USD/,
    )
    await refused(purchase('1e3'), /purchases\.p\.amount: "1e3" is not a decimal amount in major units/)
    await refused(purchase('0'), /purchases\.p\.amount: "0" must be greater than zero/)
    const settings = (max: string) =>
      `roundup_settings:\n  s: {user: usr_x, multiplier: 2, currency: JPY, max_roundup_amount: ${max}}\n`
    await refused(
      settings('5.5'),
      /roundup_settings\.s\.max_roundup_amount: "5\.5": JPY has no decimal places/,
    )
    // As on the command line: an appended currency must be the round-ups' own.
    await refused(settings('500EUR'), /max_roundup_amount: "500EUR" is in EUR but the round-ups are in JPY/)

    const sends = async (text: string) => (await sent(file(text)))[0]!.body
    expect(await sends(transaction('amount: 12.50USD'))).toMatchObject({amount: 1250, currency: 'USD'})
    expect(await sends(transaction('amount: 1250, currency: usd'))).toMatchObject({
      amount: 1250,
      currency: 'USD',
    })
    expect(await sends(bnpl('12000'))).toMatchObject({amount: 12000, currency: 'USD'})
    expect(await sends(bnpl('120.00EUR'))).toMatchObject({amount: 12000, currency: 'EUR'})
    expect(await sends(purchase('4.35'))).toMatchObject({amount: 4.35})
    expect(await sends(purchase('4.35USD'))).toMatchObject({amount: 4.35})
    expect(await sends(settings('500'))).toMatchObject({max_roundup_amount: 500})
  })

  // Text shaped like an amount, as a person types one.
  const amountText = fc
    .tuple(
      fc.constantFrom('', '-', '+'),
      fc.oneof(
        fc.stringMatching(/^\d{1,4}$/),
        fc.bigInt({min: 0n, max: 10n ** 30n}).map(String),
        fc.constantFrom('1_000', '1e3', '0x10', ''),
      ),
      fc.constantFrom('', '.', '.0', '.00', '.5', '.50', '.505', '.123456789'),
      fc.constantFrom('', 'USD', ' USD', 'usd', 'EUR', 'JPY', 'ETH', 'XYZ', 'U'),
    )
    .map((parts) => parts.join(''))

  it('accepts exactly what --amount accepts, with the same value, and refuses the rest', async () => {
    await fc.assert(
      fc.asyncProperty(amountText, fc.constantFrom('USD', 'JPY', 'ETH'), async (text, currency) => {
        const path = file(
          `transactions:\n  t: {method: card, payment_method: pm_x, to: wal_x, currency: ${currency}, amount: ${JSON.stringify(text)}}\n`,
        )
        let flag: number | bigint | undefined
        try {
          flag = amountFrom(text, currency, false)
        } catch (err) {
          expect((err as PayctlError).code).toBe('INVALID_AMOUNT')
        }
        if (flag === undefined) {
          await expect(loadFixture(path, {}), text).rejects.toThrow(/:2:\d+: transactions\.t\.amount: /)
        } else {
          expect((await sent(path))[0]!.body.amount, text).toBe(flag)
        }
      }),
      {numRuns: 300},
    )
  })

  it('accepts exactly what the round-up flags accept as an amount above zero', async () => {
    await fc.assert(
      fc.asyncProperty(amountText, async (text) => {
        const path = file(
          `purchases:\n  p: {user: usr_x, merchant_name: Cafe, amount: ${JSON.stringify(text)}}\n`,
        )
        let flag: number | undefined
        try {
          flag = majorFlag(text, 'amount').value
        } catch {
          // refused by the command line
        }
        if (flag === undefined || flag <= 0) {
          await expect(loadFixture(path, {}), text).rejects.toThrow(/:2:\d+: purchases\.p\.amount: /)
        } else {
          expect((await sent(path))[0]!.body.amount, text).toBe(flag)
        }
      }),
      {numRuns: 200},
    )
  })
})

describe('a fixture with several problems', () => {
  it('says each problem on one line, even of a key that spans lines of the file', async () => {
    const path = file('? |\n  two\n  lines\n: 1\nusers: {}\n')
    const error = await loadFixture(path, {}).catch((e: unknown) => e as PayctlError)
    expect(error).toBeInstanceOf(PayctlError)
    expect((error as PayctlError).message).not.toContain('\n')
    expect((error as PayctlError).message.startsWith(`${path}:1:`)).toBe(true)
    expect((error as PayctlError).message).toContain('two\\n lines')
  })

  it('reports all seven mistakes of a fixture at once, each at its place, in file order', async () => {
    const path = file(
      [
        'name: seven',
        'users:',
        '  alice:',
        '    email: alice@example.test',
        '    first_name: Alice',
        '    last_name: Archer',
        '  bob:',
        '    email: bob-at-example.test',
        '    first_name: Bob',
        '    last_name: Baker',
        '  carol:',
        '    email: carol@example.test',
        '    first_name: Carol',
        '  alice:',
        '    email: alice2@example.test',
        '    first_name: Alice',
        '    last_name: Again',
        'wallets:',
        '  alice_usd:',
        '    user: ${users.alice.id}',
        '    currency: USD',
        '    initial_balance: 12.345USD',
        '  bob_xyz:',
        '    user: ${users.bob.id}',
        '    currency: XYZ',
        '  ghost_usd:',
        '    user: ${users.ghost.id}',
        '    currency: USD',
        'transactions:',
        '  lunch:',
        '    method: cheque',
        '    amount: 1250',
        '    currency: USD',
        '    from: ${wallets.alice_usd.id}',
        '    to: ${wallets.bob_xyz.id}',
        '',
      ].join('\n'),
    )
    const error = await loadFixture(path, {}).then(
      () => undefined,
      (err: PayctlError) => err,
    )
    expect(error?.code).toBe('INVALID_FIXTURE')
    expect(error?.exitCode).toBe(2)
    const [head, ...lines] = error!.message.split('\n')
    expect(head).toMatch(/^7 problems in f\d+\.yaml; nothing was sent:$/)
    expect(lines.map((l) => l.replace(`  ${path}:`, ''))).toEqual([
      '8:5: users.bob.email: "bob-at-example.test" is not an email address',
      expect.stringMatching(/^11:3: users\.carol\.last_name: /),
      '14:3: users.alice: the name is used twice (first at line 3); each record needs a name of its own',
      '22:5: wallets.alice_usd.initial_balance: USD has 2 decimal places; "12.345USD" has 3',
      expect.stringMatching(/^25:5: wallets\.bob_xyz\.currency: unsupported currency "XYZ"/),
      '26:3: wallets.ghost_usd: ${users.ghost.id} names no record of the fixture',
      expect.stringMatching(/^31:5: transactions\.lunch\.method: /),
    ])
  })

  it('tells a problem that every record of a counted entry has once', async () => {
    const path = file(
      'users:\n  u:\n    count: 500\n    email: u{{n}}@x.test\n    first_name: U\n    last_name: V\nwallets:\n  w:\n    count: 500\n    user: ${users.u[{{i}}].id}\n    currency: USD\n    initial_balance: 12.345USD\n    owner: ${users.nobody.id}\n',
    )
    const error = await loadFixture(path, {}).catch((err: PayctlError) => err)
    expect((error as PayctlError).message.split('\n')).toEqual([
      '2 problems in ' + path.split('/').at(-1) + '; nothing was sent:',
      `  ${path}:8:3: wallets.w: Unrecognized key: "owner"`,
      `  ${path}:12:5: wallets.w.initial_balance: USD has 2 decimal places; "12.345USD" has 3`,
    ])
  })
})
