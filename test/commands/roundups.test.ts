import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {askRoundupSettings, type Prompter} from '../../src/cli/roundups-wizard.js'
import type {RoundupSettingsRecord} from '../../src/contract/index.js'
import {type Cli, type CliResult, cliFor, ROOT} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

let sandbox: LocalSandbox
let cli: Cli
const json = async <T = Record<string, unknown>>(...args: string[]): Promise<T> => {
  const r = await cli(...args, '--json')
  expect(r.exitCode, r.stdout + r.stderr).toBe(0)
  return r.json<T>()
}
const errorOf = (r: CliResult) =>
  r.json<{error: {code: string; status?: number; message: string; details?: Record<string, unknown>}}>().error

/** Setup and checks go straight to the sandbox over HTTP; the CLI is what is under test. */
async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sandbox.url}/v1${path}`, {
    method,
    headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const parsed = (await res.json()) as {data: T}
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(parsed)}`)
  return parsed.data
}
const newUser = async (name: string) =>
  (
    await api<{id: string}>('POST', '/users', {
      email: `${name}@example.test`,
      first_name: name,
      last_name: 'T',
    })
  ).id
const newWallet = async (userId: string, initialBalance = 0) =>
  (await api<{id: string}>('POST', '/wallets', {userId, currency: 'USD', initialBalance})).id
const available = async (wallet: string) =>
  (await api<{available: number}>('GET', `/wallets/${wallet}/balance`)).available

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox)
})
afterAll(async () => {
  await sandbox.stop()
})

describe('roundups', () => {
  it('enables, changes and shows settings, with amounts in major units', async () => {
    const user = await newUser('settings')
    const on = await json<RoundupSettingsRecord>('roundups', 'enable', user, '--multiplier', '2')
    expect(on).toMatchObject({user_id: user, enabled: true, multiplier: 2, max_roundup_amount: 5})
    const set = await json<RoundupSettingsRecord>(
      'roundups',
      'settings',
      'set',
      user,
      '--max',
      '2.50',
      '--no-enabled',
    )
    expect(set).toMatchObject({enabled: false, multiplier: 2, max_roundup_amount: 2.5})
    const human = await cli('roundups', 'settings', 'get', user)
    expect(human.exitCode).toBe(0)
    expect(human.stdout).toMatch(/round-ups\s+off/)
    expect(human.stdout).toMatch(/multiplier\s+×2/)
    expect(human.stdout).toMatch(/cap per purchase\s+2\.50 USD/)
    // Piped, a change prints just the user id.
    const piped = await cli('roundups', 'settings', 'set', user, '--enabled')
    expect(piped.stdout.trim()).toBe(user)
  })

  it('refuses a multiplier outside 1, 2, 3, 5 naming them, in the CLI and in the sandbox', async () => {
    const user = await newUser('multiplier')
    const r = await cli('roundups', 'settings', 'set', user, '--multiplier', '4')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('1, 2, 3, 5')
    const raw = await cli(
      'api',
      'PUT',
      `/roundupsvc/users/${user}/roundups/settings`,
      '-d',
      '{"multiplier":4}',
    )
    expect(raw.exitCode).toBe(1)
    expect(JSON.parse(raw.stdout)).toMatchObject({
      error: {code: 'VALIDATION_ERROR', details: {field: 'multiplier', allowed_multipliers: [1, 2, 3, 5]}},
    })
  })

  it('without a terminal, settings set with no flags is an error naming the flag, not a prompt', async () => {
    const [r, missing, bad] = await Promise.all([
      cli('roundups', 'settings', 'set', 'usr_whoever', '--json'),
      cli('roundups', 'process', '--user', 'usr_x', '--amount', '4.35', '--json'),
      cli(
        'roundups',
        'process',
        '--user',
        'u',
        '--amount',
        '4,35',
        '--merchant',
        'M',
        '--transaction-id',
        't',
      ),
    ])
    expect(r.exitCode).toBe(2)
    expect(errorOf(r)).toMatchObject({code: 'MISSING_FLAG', details: {flag: '--multiplier'}})
    expect(missing.exitCode).toBe(2)
    expect(errorOf(missing)).toMatchObject({
      code: 'MISSING_FLAG',
      details: {flags: ['--merchant', '--transaction-id']},
    })
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('--amount must be a decimal amount')
  })

  it('processes purchases once per transaction id, and transfers exactly the pending total', async () => {
    const user = await newUser('spender')
    const source = await newWallet(user, 10_000)
    const savings = await newWallet(await newUser('saver'))
    await json('roundups', 'enable', user, '--multiplier', '2', '--destination-account', savings)
    const process = (amount: string, id: string) =>
      cli(
        'roundups',
        'process',
        '--user',
        user,
        '--amount',
        amount,
        '--merchant',
        'Blue Bottle',
        '--transaction-id',
        id,
      )
    const first = await process('4.35', 'pos-1')
    expect(first.exitCode, first.stderr).toBe(0)
    expect(first.stdout.trim()).toMatch(/^rnd_/)
    const card = await cli(
      'roundups',
      'process',
      '--user',
      user,
      '--amount',
      '4.35',
      '--merchant',
      'Blue Bottle',
      '--transaction-id',
      'pos-1',
      '--json',
    )
    expect(card.json()).toMatchObject({id: first.stdout.trim(), roundup_amount: 1.3, duplicate: true})
    await process('7.20', 'pos-2')
    const pending = await cli('roundups', 'pending', user)
    expect(pending.stdout).toMatch(/pending\s+2\.90 USD/)
    expect(pending.stdout).toContain('pos-2')
    const transfer = await json<{amount: number; status: string; transaction_id: string}>(
      'roundups',
      'transfer',
      user,
    )
    expect(transfer).toMatchObject({amount: 2.9, status: 'completed'})
    expect(await available(source)).toBe(10_000 - 290)
    expect(await available(savings)).toBe(290)
    expect(await json('roundups', 'pending', user)).toMatchObject({count: 0, total: 0})
    const again = await cli('roundups', 'transfer', user, '--json')
    expect(again.exitCode).toBe(1)
    expect(errorOf(again)).toMatchObject({code: 'NO_PENDING_ROUNDUPS', status: 422})
  })
})

describe('round-up destinations', () => {
  it("refuses the user's own wallet naming what is accepted, and how to make one", async () => {
    const user = await newUser('own-wallet')
    const own = await newWallet(user)
    const r = await cli('roundups', 'enable', user, '--destination-account', own)
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(`INVALID_DESTINATION_ACCOUNT: Wallet ${own} is user ${user}'s own USD wallet`)
    // What is accepted, in the message (the service's) and as commands (the CLI's).
    expect(r.stderr).toContain(`A destination is a bank account ${user} connected (its ba_… id`)
    expect(r.stderr).toContain('or a USD wallet of another user')
    expect(r.stderr).toContain('a user has one wallet per currency')
    expect(r.stderr).toContain(`Try: payctl accounts connect ${user} --complete --jq .id`)
    // A connected account's payment method, which `accounts connect` prints piped, names its account.
    const account = await json<{id: string; paymentMethodId: string}>(
      'accounts',
      'connect',
      user,
      '--complete',
    )
    const pm = await cli('roundups', 'enable', user, '--destination-account', account.paymentMethodId)
    expect(pm.exitCode).toBe(1)
    expect(pm.stderr).toContain(
      `is the payment method of bank account ${account.id}, not an account: give ${account.id}`,
    )
  })

  it('in another currency, names a wallet of another user only', async () => {
    const user = await newUser('euro-saver')
    const r = await cli(
      'roundups',
      'enable',
      user,
      '--currency',
      'EUR',
      '--destination-account',
      'wal_000000000000000000000000',
      '--json',
    )
    expect(r.exitCode).toBe(1)
    const error = errorOf(r) as {message: string; suggestions?: string[]}
    expect(error.message).toContain('A destination is a EUR wallet of another user')
    expect(error.message).toContain('a bank account takes USD round-ups only')
    expect(error.suggestions?.join('\n')).not.toContain('accounts connect')
  })

  it('works as docs/roundups.md shows it', async () => {
    const docs = readFileSync(join(ROOT, 'docs/roundups.md'), 'utf8')
    const block = /## CLI\n\n```sh\n([\s\S]*?)```/.exec(docs)![1]!
    const steps = block
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => /^payctl (accounts connect|roundups enable) /.test(line))
    expect(steps.some((s) => s.startsWith('payctl roundups enable'))).toBe(true)
    // As a reader follows it: usr_… is the user, wal_… the user's wallet, ba_… the account just printed.
    const user = await newUser('reader')
    const own = await newWallet(user)
    let printed = ''
    for (const step of steps) {
      const args = step
        .split(/\s+/)
        .slice(1)
        .map((a) => a.replace('usr_…', user).replace('wal_…', own).replace('ba_…', printed))
      const r = await cli(...args)
      expect(r.exitCode, `${step}\n${r.stderr}`).toBe(0)
      printed = r.stdout.trim()
    }
    const settings = await json<RoundupSettingsRecord>('roundups', 'settings', 'get', user)
    expect(settings.destination_account_id).toMatch(/^ba_/)
  })
})

describe('round-up amounts with more decimals than the currency has', () => {
  const process = (user: string, amount: string, ...more: string[]) =>
    cli(
      'roundups',
      'process',
      '--user',
      user,
      '--amount',
      amount,
      '--merchant',
      'M',
      '--transaction-id',
      'pos-d',
      ...more,
    )

  it('are refused before anything is sent, naming the flag and the decimal places', async () => {
    const user = await newUser('decimals')
    await json('roundups', 'enable', user)
    const r = await process(user, '4.355', '--debug')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(
      '--amount 4.355 has 3 decimal places, but the round-ups are in USD, which has 2',
    )
    expect(r.stderr).not.toContain('POST /v1/transactions/process')
    expect(r.stderr).not.toContain('/transactions/process')
    // What the currency allows goes through; trailing zeros are no decimals of the number sent.
    const ok = await process(user, '4.350', '--json')
    expect(ok.exitCode, ok.stderr).toBe(0)
    expect(ok.json()).toMatchObject({amount: 4.35, duplicate: false})
    const max = await cli('roundups', 'settings', 'set', user, '--max', '2.505')
    expect(max.exitCode).toBe(2)
    expect(max.stderr).toContain(
      '--max 2.505 has 3 decimal places, but the round-ups are in USD, which has 2',
    )
  })

  it('in a currency without decimals, say so; a known one is checked for any decimals', async () => {
    const user = await newUser('yen')
    await json('roundups', 'enable', user, '--currency', 'JPY', '--max', '500')
    const r = await process(user, '435.555')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(
      '--amount 435.555 has 3 decimal places, but the round-ups are in JPY, which has none',
    )
    // --currency says it without a request.
    const set = await cli('roundups', 'settings', 'set', user, '--currency', 'JPY', '--max', '2.5')
    expect(set.exitCode).toBe(2)
    expect(set.stderr).toContain(
      '--max 2.5 has 1 decimal place, but the round-ups are in JPY, which has none',
    )
  })
})

describe('roundups settings set, in a terminal', () => {
  const current: RoundupSettingsRecord = {
    user_id: 'usr_1',
    enabled: false,
    multiplier: 1,
    max_roundup_amount: 5,
    destination_account_id: null,
    currency: 'USD',
    created_at: null,
    updated_at: null,
  }
  /** A prompter that answers from a script and remembers what it was asked. */
  function scripted(answers: unknown[]) {
    const asked: string[] = []
    const choices: string[][] = []
    const next = <T>(message: string) => {
      asked.push(message)
      return Promise.resolve(answers.shift() as T)
    }
    const prompter: Prompter = {
      select: (message, list) => {
        choices.push(list.map((c) => c.name))
        return next(message)
      },
      input: (message) => next(message),
      confirm: (message) => next(message),
    }
    return {prompter, asked, choices}
  }

  it('walks through a select for the multiplier, the cap, the destination, then confirms enabling', async () => {
    const {prompter, asked, choices} = scripted([2, '2.50', 'wal_savings', true])
    const change = await askRoundupSettings(current, prompter)
    expect(change).toEqual({
      multiplier: 2,
      max_roundup_amount: 2.5,
      destination_account_id: 'wal_savings',
      enabled: true,
    })
    expect(choices[0]).toEqual([
      '×1 (4.35 → 0.65 USD)',
      '×2 (4.35 → 1.30 USD)',
      '×3 (4.35 → 1.95 USD)',
      '×5 (4.35 → 3.25 USD)',
    ])
    expect(asked.at(-1)).toBe('Turn round-ups on for usr_1 (×2, at most 2.50 USD a purchase)?')
  })

  it('answering no keeps round-ups off, and unchanged answers send nothing', async () => {
    const {prompter} = scripted([1, '5', '', false])
    expect(await askRoundupSettings(current, prompter)).toEqual({})
  })
})
