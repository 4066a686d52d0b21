import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, type CliResult, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * Bad input on the command line: random values for the flags and arguments of a set of commands
 * (amounts, currencies, ids, durations, metadata, URLs, numbers, files), each run from src/ in
 * this process (payctl()) against a local sandbox served here. A run may succeed; when it fails,
 * it exits 1, 2, 4 or 5, says on stderr which code and what is wrong, never prints a stack trace
 * (nor the bare message of an error no command rendered), and under --json prints nothing or one
 * JSON document.
 *
 * RUNS per group (PAYCTL_FLAG_FUZZ_RUNS), the groups at once.
 */

const RUNS = Number(process.env.PAYCTL_FLAG_FUZZ_RUNS ?? 22)
const STACK_LINE = /^\s+at .*(\.(js|ts|mjs|cjs):\d+|node:internal)/m
const ERROR_LINE = /^([A-Z][A-Z0-9_]+): (.*)$/m

let sandbox: LocalSandbox
let cli: Cli
const real: {user: string; user2: string; wallet: string; wallet2: string; txn: string; webhook: string} = {
  user: '',
  user2: '',
  wallet: '',
  wallet2: '',
  txn: '',
  webhook: '',
}
let payloadFile = ''
let fixtureFile = ''
const runs: {args: string[]; r: CliResult}[] = []

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox, {timeoutMs: 30_000})
  const api = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox.url}/v1${path}`, {
      method: 'POST',
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
      body: JSON.stringify(body),
    })
    const json = (await res.json()) as {data: {id: string}}
    return json.data.id
  }
  real.user = await api('/users', {email: 'f@example.test', first_name: 'F', last_name: 'Uzz'})
  real.user2 = await api('/users', {email: 'g@example.test', first_name: 'G', last_name: 'Uzz'})
  real.wallet = await api('/wallets', {userId: real.user, currency: 'USD', initialBalance: 1_000_000})
  real.wallet2 = await api('/wallets', {userId: real.user2, currency: 'USD'})
  real.txn = await api('/transactions', {
    method: 'card',
    amount: 5000,
    currency: 'USD',
    destinationWalletId: real.wallet,
    paymentMethodId: 'pm_card_visa',
  })
  real.webhook = await api('/webhooks', {url: 'http://127.0.0.1:9/h', events: ['*']})
  payloadFile = join(sandbox.configDir, 'payload.json')
  writeFileSync(payloadFile, '{"event":"wallet.created"}')
  fixtureFile = join(sandbox.configDir, 'fixture.yaml')
  writeFileSync(fixtureFile, 'users:\n  a: {email: a@example.test, first_name: A, last_name: B}\n')
})
afterAll(async () => {
  const failed = runs.filter((x) => x.r.exitCode !== 0)
  const codes = new Map<string, number>()
  for (const {r} of failed) {
    const code = ERROR_LINE.exec(r.stderr)?.[1] ?? (r.stdout.includes('"error"') ? 'json' : '?')
    codes.set(code, (codes.get(code) ?? 0) + 1)
  }
  console.info(
    `random flags: ${runs.length} payctl runs, ${failed.length} failed: ${[...codes].map(([c, n]) => `${c}×${n}`).join(' ')}`,
  )
  await sandbox.stop()
})

// ---- values -------------------------------------------------------------------------------

const junk = fc.oneof(
  fc.string({maxLength: 16}),
  fc.string({unit: 'grapheme', maxLength: 8}),
  fc.constantFrom(
    '',
    ' ',
    '-',
    '--',
    '-x',
    '=',
    '%s',
    '${HOME}',
    '$(id)',
    '\\',
    '"',
    "'",
    '\u00e9',
    '\u202e',
    'null',
  ),
)
const amount = fc.oneof(
  fc.constantFrom(
    '12.34USD',
    '1234',
    '0',
    '-5',
    '1.005USD',
    '5.00',
    '12,34EUR',
    '0.5ETH',
    '1e3',
    '0x10',
    '١٢',
  ),
  fc.bigInt({min: -(10n ** 30n), max: 10n ** 30n}).map(String),
  fc
    .tuple(fc.nat(99999), fc.nat(999), fc.constantFrom('USD', 'usd', 'JPY', 'BTC', 'XYZ', ''))
    .map(([a, b, c]) => `${a}.${b}${c}`),
  junk,
)
const currency = fc.oneof(
  fc.constantFrom('USD', 'usd', 'EUR', 'JPY', 'BTC', 'NEAR', 'XYZ', 'US', 'USDOLLAR'),
  junk,
)
const id = (...candidates: (() => string)[]) =>
  fc.oneof(
    fc.constantFrom(...candidates).map((c) => c()),
    fc.constantFrom('usr_000000000000000000000000', 'wal_', '../../etc', '%2F', 'a b', 'x'.repeat(300)),
    junk,
  )
const duration = fc.oneof(
  fc.constantFrom(
    '90',
    '90s',
    '15m',
    '2h',
    '7d',
    '0',
    '-1',
    '1.5h',
    '1w',
    '99999999999999999999d',
    '24h',
    '25h',
  ),
  fc.tuple(fc.nat(10_000), fc.constantFrom('', 's', 'm', 'h', 'd', 'y')).map(([n, u]) => `${n}${u}`),
  junk,
)
const metadata = fc.oneof(fc.constantFrom('a=b', '=x', 'x', 'k=v=w', 'a='), junk)
const url = fc.oneof(
  fc.webUrl(),
  fc.constantFrom(
    'http://127.0.0.1:9/h',
    'notaurl',
    'ftp://x.test',
    'http://',
    'javascript:alert(1)',
    'http://[::1',
  ),
  junk,
)
const integer = fc.oneof(
  fc.integer({min: -5, max: 300}).map(String),
  fc.constantFrom('0', '1.5', '1e9', '99999999999999999999', 'abc', ''),
  junk,
)
const events = fc.oneof(
  fc.constantFrom('*', 'wallet.created', 'bnplsvc.*', 'wallet.creatd', 'a,,b', ''),
  junk,
)

type Flags = Record<string, fc.Arbitrary<string | boolean>>
/** argv for a command: its arguments, then any subset of its flags with random values. */
function command(name: string, args: fc.Arbitrary<string>[], flags: Flags): fc.Arbitrary<string[]> {
  const optional = Object.fromEntries(
    Object.entries(flags).map(([k, a]) => [k, fc.option(a, {nil: undefined})]),
  )
  return fc
    .tuple(fc.tuple(...args), fc.record(optional), fc.boolean())
    .map(([positional, chosen, json]) => [
      ...name.split(' '),
      ...positional,
      ...Object.entries(chosen).flatMap(([k, v]) =>
        v === undefined || v === false ? [] : v === true ? [`--${k}`] : [`--${k}`, v as string],
      ),
      ...(json ? ['--json'] : []),
    ])
}

const user = () => real.user
const user2 = () => real.user2
const wallet = () => real.wallet
const wallet2 = () => real.wallet2
const txn = () => real.txn
const webhook = () => real.webhook

const GROUPS: Record<string, fc.Arbitrary<string[]>> = {
  'money movement': fc.oneof(
    command('transactions create', [], {
      method: fc.oneof(fc.constantFrom('card', 'ach', 'wire', 'wallet', 'crypto', 'apple_pay', 'sepa'), junk),
      amount,
      currency,
      decimal: fc.boolean(),
      from: id(wallet, wallet2),
      to: id(wallet2, wallet),
      'payment-method': fc.oneof(fc.constantFrom('pm_card_visa', 'pm_card_declined', 'pm_ach_success'), junk),
      description: junk,
      metadata,
      'idempotency-key': junk,
      timeout: duration,
    }),
    command('transactions refund', [id(txn)], {amount, reason: junk, 'idempotency-key': junk}),
    command('p2p send', [], {
      from: id(user),
      to: id(user2),
      amount,
      currency,
      decimal: fc.boolean(),
      note: junk,
    }),
    command('payments create', [], {user: id(user), amount, currency, merchant: junk, decimal: fc.boolean()}),
  ),
  wallets: fc.oneof(
    command('wallets create', [], {user: id(user2, user), currency, label: junk, 'initial-balance': amount}),
    command('wallets update', [id(wallet2)], {
      label: fc.oneof(junk, fc.string({minLength: 49, maxLength: 60})),
      status: fc.oneof(fc.constantFrom('active', 'frozen', 'closed', 'nope'), junk),
      'limit-transaction': amount,
      'limit-daily': amount,
      'limit-monthly': amount,
    }),
    command('wallets list', [], {
      user: id(user),
      currency,
      limit: integer,
      cursor: junk,
      output: fc.oneof(fc.constantFrom('table', 'json', 'csv', 'xml'), junk),
      columns: fc.oneof(fc.constantFrom('id,total', 'nope', ',,'), junk),
    }),
    command('transactions list', [], {
      wallet: id(wallet),
      status: fc.oneof(fc.constantFrom('completed', 'done'), junk),
      type: fc.oneof(fc.constantFrom('deposit', 'gift'), junk),
      limit: integer,
      cursor: junk,
    }),
    command('wallets get', [id(wallet)], {}),
    command('users create', [], {
      email: fc.oneof(fc.emailAddress(), junk),
      'first-name': junk,
      'last-name': junk,
      'external-id': junk,
    }),
  ),
  'webhooks and auth': fc.oneof(
    command('webhooks register', [], {url, events, 'idempotency-key': junk}),
    command('webhooks rotate-secret', [id(webhook)], {'expires-in': duration}),
    command('webhooks verify', [], {
      secret: fc.oneof(fc.constantFrom('whsec_abcdefghijklmnop'), junk),
      signature: fc.oneof(fc.constantFrom('t=1,v1=00', `t=1767225600,v1=${'a'.repeat(64)}`), junk),
      payload: fc.oneof(
        fc.constant(payloadFile),
        fc.constantFrom('/nonexistent/file', '/', '-'),
        junk.map((j) => `/tmp/${j}`),
      ),
      tolerance: integer,
    }),
    command('auth token', [], {
      scopes: fc.oneof(fc.constantFrom('balance:read', 'nope:read', ','), junk),
      ttl: duration,
    }),
    command('sandbox advance', [duration], {}),
    command('events list', [], {limit: integer, cursor: junk}),
  ),
  'products and tools': fc.oneof(
    command('roundups enable', [id(user)], {
      multiplier: fc.oneof(fc.constantFrom('1', '2', '4'), junk),
      max: amount,
      'destination-account': id(wallet2),
      currency,
    }),
    command('roundups process', [], {user: id(user), amount, merchant: junk, 'transaction-id': junk}),
    command('bnpl payments create', [], {
      user: id(user),
      amount,
      currency,
      merchant: junk,
      decimal: fc.boolean(),
    }),
    command('bnpl prequalify', [], {user: id(user), amount, currency}),
    command(
      'api',
      [
        fc.oneof(fc.constantFrom('GET', 'POST', 'PATCH', 'BREW'), junk),
        fc.oneof(fc.constantFrom('/users', '/wallets', 'users', '/_sandbox/health', '//x'), junk),
      ],
      {
        data: fc.oneof(
          fc.jsonValue().map((v) => JSON.stringify(v)),
          junk,
        ),
        header: fc.oneof(fc.constantFrom('X-A: b', 'nocolon', 'Authorization: Bearer x'), junk),
      },
    ),
    command('seed', [fc.oneof(fc.constant(fixtureFile), fc.constantFrom('/nonexistent.yaml', '/'), junk)], {
      concurrency: integer,
      rate: fc.oneof(integer, fc.constant('off')),
      'dry-run': fc.boolean(),
    }),
  ),
}

function check(args: string[], r: CliResult): void {
  const context = `payctl ${args.map((a) => JSON.stringify(a)).join(' ')}\nexit ${r.exitCode}\nstdout:\n${r.stdout.slice(0, 1500)}\nstderr:\n${r.stderr.slice(0, 1500)}`
  expect([0, 1, 2, 4, 5], context).toContain(r.exitCode)
  expect(r.stderr, context).not.toMatch(STACK_LINE)
  expect(r.stdout, context).not.toMatch(STACK_LINE)
  const json = args.includes('--json')
  if (json && r.stdout.trim() !== '' && !args.includes('--paginate')) {
    expect(() => JSON.parse(r.stdout), context).not.toThrow()
  }
  if (r.exitCode === 0) return
  if (json && r.stdout.trim() !== '' && !args.includes('--paginate')) {
    const {error} = JSON.parse(r.stdout) as {error: {code: string; message: string; exitCode: number}}
    expect(error.code, context).toMatch(/^[A-Z][A-Z0-9_]*$/)
    expect(error.message.length, context).toBeGreaterThan(5)
    expect(error.exitCode, context).toBe(r.exitCode)
    expect(error.code, context).not.toBe('UNEXPECTED')
    return
  }
  // The human form: `CODE: message` on stderr, and never the catch-all of a bug.
  const m = ERROR_LINE.exec(r.stderr)
  expect(m, context).not.toBeNull()
  expect(m![1], context).not.toBe('UNEXPECTED')
  if (r.exitCode === 2) {
    // A usage error names what is wrong: a flag, an argument, a value or the missing piece.
    expect(r.stderr, context).toMatch(/--[a-z]|argument|[A-Z]+ |"|required|missing|expected|not a|unknown/i)
  }
}

describe('every command’s flags against random values', () => {
  for (const [group, arb] of Object.entries(GROUPS)) {
    it.concurrent(`${group}: a clear error or a result, never a crash`, async () => {
      await fc.assert(
        fc.asyncProperty(arb, async (args) => {
          const r = await cli(...args)
          runs.push({args, r})
          check(args, r)
        }),
        {numRuns: RUNS, endOnFailure: true},
      )
    }, 180_000)
  }
})
