import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {BnplPayment} from '../../src/contract/index.js'
import {type Cli, type CliResult, cliFor} from '../helpers/cli.js'
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
  const res = await fetch(`${sandbox.url}${path.startsWith('/_') ? '' : '/v1'}${path}`, {
    method,
    headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const parsed = (await res.json()) as {data?: T} & T
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(parsed)}`)
  return parsed.data ?? parsed
}
/** A user (email `name@example.test`) with a USD wallet holding `balance` cents. */
async function customer(name: string, balance: number): Promise<{user: string; wallet: string}> {
  const user = (
    await api<{id: string}>('POST', '/users', {
      email: `${name}@example.test`,
      first_name: name,
      last_name: 'T',
    })
  ).id
  const wallet = (
    await api<{id: string}>('POST', '/wallets', {userId: user, currency: 'USD', initialBalance: balance})
  ).id
  return {user, wallet}
}

beforeAll(async () => {
  // Nothing is collected until a test moves the clock.
  sandbox = await startLocalSandbox({settleAfterSeconds: 3600})
  cli = cliFor(sandbox)
})
afterAll(async () => {
  await sandbox.stop()
})

describe('bnpl', () => {
  it('prequalify shows the decision and the limit; a decline is an answer, exit 0', async () => {
    const {user} = await customer('ada', 0)
    const {user: tagged} = await customer('grace+decline', 0)
    const [ok, declined] = await Promise.all([
      cli('bnpl', 'prequalify', '--user', user, '--amount', '240.00USD'),
      cli('bnpl', 'prequalify', '--user', tagged, '--amount', '240.00USD', '--json'),
    ])
    expect(ok.exitCode, ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/decision\s+approved/)
    expect(ok.stdout).toMatch(/available\s+1,000\.00 USD/)
    expect(declined.exitCode).toBe(0)
    expect(declined.json()).toMatchObject({decision: 'declined', reasons: ['sandbox_decline']})
  })

  it('creates a payment, shows its schedule, and follows it on the sandbox clock', async () => {
    const {user, wallet} = await customer('katherine', 50_000)
    const piped = await cli(
      'bnpl',
      'payments',
      'create',
      '--user',
      user,
      '--amount',
      '240.00USD',
      '--merchant',
      'Allbirds',
    )
    expect(piped.exitCode, piped.stderr).toBe(0)
    const id = piped.stdout.trim()
    expect(id).toMatch(/^bnpl_[0-9a-f]{24}$/)
    const shown = await cli('bnpl', 'payments', 'get', id)
    expect(shown.stdout).toMatch(/status\s+pending/)
    // Labelled in words, as every card: `created` and `updated`, no field name (`updatedAt`).
    const card = shown.stdout.slice(0, shown.stdout.search(/^#/m)).split('\n').filter(Boolean)
    expect(card.map((line) => line.split(/\s{2,}/)[0]).filter((label) => !/^[a-z ]+$/.test(label!))).toEqual(
      [],
    )
    expect(shown.stdout).toMatch(/^created\s+\S+Z$/m)
    expect(shown.stdout).toMatch(/^updated\s+\S+Z$/m)
    expect(shown.stdout).toMatch(/amount\s+240\.00 USD/)
    expect(shown.stdout.match(/60\.00 USD\s+\S+\s+scheduled/g)).toHaveLength(4)
    await api('POST', '/_sandbox/clock/advance', {seconds: 3600})
    const active = await json<BnplPayment>('bnpl', 'payments', 'get', id)
    expect(active).toMatchObject({status: 'active', paidInstallments: 1, outstandingAmount: 18_000})
    expect((await api<{available: number}>('GET', `/wallets/${wallet}/balance`)).available).toBe(44_000)
    const list = await json<{payments: BnplPayment[]}>(
      'bnpl',
      'payments',
      'list',
      '--user',
      user,
      '--status',
      'active',
    )
    expect(list.payments.map((p) => p.id)).toEqual([id])
  })

  it('sandbox advance 14d right after a purchase collects both instalments that fell due', async () => {
    const {user} = await customer('advance', 50_000)
    const id = (
      await json<BnplPayment>(
        'bnpl',
        'payments',
        'create',
        '--user',
        user,
        '--amount',
        '240.00USD',
        '--merchant',
        'Allbirds',
      )
    ).id
    const advanced = await cli('sandbox', 'advance', '14d')
    expect(advanced.exitCode, advanced.stderr).toBe(0)
    const payment = await json<BnplPayment>('bnpl', 'payments', 'get', id)
    expect(payment).toMatchObject({status: 'active', paidInstallments: 2, outstandingAmount: 12_000})
  })

  it('cancel never asks without a terminal, refunds, and is refused once cancelled', async () => {
    const {user, wallet} = await customer('alan', 50_000)
    const first = await json<BnplPayment>(
      'bnpl',
      'payments',
      'create',
      '--user',
      user,
      '--amount',
      '100.00USD',
      '--merchant',
      'Allbirds',
    )
    await json('bnpl', 'payments', 'create', '--user', user, '--amount', '50.00USD', '--merchant', 'Allbirds')
    await api('POST', '/_sandbox/clock/advance', {seconds: 3600})
    const cancelled = await cli('bnpl', 'payments', 'cancel', first.id)
    expect(cancelled.exitCode, cancelled.stderr).toBe(0)
    expect(cancelled.stdout.trim()).toBe(first.id)
    expect(await json('bnpl', 'payments', 'get', first.id)).toMatchObject({status: 'cancelled'})
    expect((await api<{available: number}>('GET', `/wallets/${wallet}/balance`)).available).toBe(
      50_000 - 1_250,
    )
    const again = await cli('bnpl', 'payments', 'cancel', first.id, '--yes', '--json')
    expect(again.exitCode).toBe(1)
    expect(errorOf(again)).toMatchObject({
      code: 'INVALID_STATE_TRANSITION',
      status: 422,
      details: {status: 'cancelled', allowed: ['pending', 'active']},
    })
    const page = await cli('bnpl', 'payments', 'list', '--user', user, '--limit', '1')
    expect(page.stdout).toMatch(/active\s+50\.00 USD\s+1\/4/)
    expect(page.stderr).toContain('More payments: --cursor')
  })
})
