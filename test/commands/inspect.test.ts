import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliEnv, payctl, ROOT} from '../helpers/cli.js'
import {startFaultProxy} from '../helpers/fault-proxy.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {hasScript, screenOf} from '../helpers/terminal.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'

/**
 * The support ticket answered by one command (README, "For support staff"): a customer with two
 * wallets, a card top-up, a failed ACH, a wallet transfer, a partial refund, a round-up transfer,
 * a BNPL instalment and a webhook delivery that failed then succeeded, all built through the CLI,
 * and one `users inspect` whose lines account for every cent.
 */

let sandbox: SandboxProcess
let receiver: Receiver
const cli = (...args: string[]) => payctl(args, {configDir: sandbox.configDir, timeoutMs: 60_000})
const id = async (...args: string[]) => {
  const r = await cli(...args)
  expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  return r.stdout.trim()
}

interface Line {
  at: string
  kind: string
  what: string
  amount?: number
  currency?: string
  walletId?: string
  otherSide?: string
  status?: string
  id: string
  source: string
  sourceIds: Record<string, string>
  balanceAfter?: {total: number}
  deliveries?: {status: string; attempts: number; tries: {status: number | null}[]}[]
}
interface Story {
  user: {id: string}
  wallets: {id: string; currency: string; balance: {total: number}}[]
  bnplPayments: {id: string}[]
  window: {since: string; now: string; clock: string}
  missing: unknown[]
  timeline: Line[]
}
const story = async (...args: string[]) => {
  const r = await cli(...args, '--json')
  expect(r.exitCode, r.stderr).toBe(0)
  return r.json<Story>()
}

let ada: string
let usd: string
let eur: string
let bobs: string
let card: string
let ach: string
let refund: string
beforeAll(async () => {
  sandbox = await startSandboxProcess(['--webhook-retries', 'fast'])
  // Fails the first delivery it gets, then takes every one.
  receiver = await startReceiver({respond: (_r, index) => (index === 0 ? 500 : 200)})
  await id('webhooks', 'register', '--url', receiver.url, '--events', 'transaction.*')
  ada = await id('users', 'create', '--email', 'ada@example.test', '--first-name', 'Ada', '--last-name', 'L')
  usd = await id('wallets', 'create', '--user', ada, '--currency', 'USD')
  eur = await id('wallets', 'create', '--user', ada, '--currency', 'EUR')
  const bob = await id(
    'users',
    'create',
    '--email',
    'bob@example.test',
    '--first-name',
    'Bob',
    '--last-name',
    'B',
  )
  bobs = await id('wallets', 'create', '--user', bob, '--currency', 'USD')
  const pay = (method: string, amount: string, to: string, pm: string) =>
    id('transactions', 'create', '--method', method, '--amount', amount, '--to', to, '--payment-method', pm)
  card = await pay('card', '200.00USD', usd, 'pm_card_visa')
  await pay('card', '50.00EUR', eur, 'pm_card_visa')
  ach = await pay('ach', '40.00USD', usd, 'pm_ach_returned')
  await id(
    'transactions',
    'create',
    '--method',
    'wallet',
    '--amount',
    '25.00USD',
    '--from',
    usd,
    '--to',
    bobs,
  )
  refund = await id('transactions', 'refund', card, '--amount', '10.00USD')
  await id(
    'roundups',
    'settings',
    'set',
    ada,
    '--enabled',
    '--multiplier',
    '1',
    '--max',
    '5',
    '--destination-account',
    bobs,
  )
  await id(
    'roundups',
    'process',
    '--user',
    ada,
    '--amount',
    '4.35',
    '--merchant',
    'Cafe',
    '--transaction-id',
    'p-1',
  )
  await id('roundups', 'transfer', ada)
  await id('bnpl', 'payments', 'create', '--user', ada, '--amount', '80.00USD', '--merchant', 'Shoes')
  expect((await cli('sandbox', 'advance', '3d')).exitCode).toBe(0)
  // The failed first delivery is retried half a second later (--webhook-retries fast).
  for (let i = 0; i < 100; i++) {
    const pending = await cli('events', 'list', '--delivery', 'pending', '--json')
    if (pending.json<{events: unknown[]}>().events.length === 0) break
    await new Promise((r) => setTimeout(r, 200))
  }
}, 120_000)
afterAll(async () => {
  await receiver?.close()
  await sandbox?.stop()
})

/** The signed amounts of the lines of one wallet, in the smallest unit. */
const sumOf = (lines: Line[], wallet: string) =>
  lines.filter((l) => l.walletId === wallet).reduce((n, l) => n + (l.amount ?? 0), 0)

describe('users inspect', () => {
  it('accounts for every cent: the lines of each wallet add up to its balance', async () => {
    const s = await story('users', 'inspect', ada)
    expect(s.user.id).toBe(ada)
    expect(s.missing).toEqual([])
    expect(s.window.clock).toBe('service')
    expect(s.wallets.map((w) => w.id).sort()).toEqual([usd, eur].sort())
    for (const w of s.wallets) {
      expect(sumOf(s.timeline, w.id), w.currency).toBe(w.balance.total)
      // The newest line of a wallet that the ledger tells leaves the wallet's balance.
      const newest = s.timeline.find((l) => l.walletId === w.id && l.balanceAfter !== undefined)
      expect(newest?.balanceAfter?.total).toBe(w.balance.total)
    }
    expect(s.wallets.find((w) => w.id === eur)?.balance.total).toBeGreaterThan(0)
    // Every transaction of the user's wallets is a line (a transfer's incoming half under its pair).
    const listed = await cli('transactions', 'list', '--user', ada, '--all', '--json')
    const ids = new Set(s.timeline.flatMap((l) => [l.id, ...Object.values(l.sourceIds)]))
    for (const t of listed.json<{transactions: {id: string}[]}>().transactions) expect(ids).toContain(t.id)
  })

  it('tells each movement, newest first, with its status changes, other side and id', async () => {
    const {timeline} = await story('users', 'inspect', ada)
    const times = timeline.map((l) => Date.parse(l.at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    const of = (txn: string) => timeline.filter((l) => l.source !== 'event' && l.id === txn)
    // A failed ACH: processing when it came, failed with its code when it was returned.
    expect(of(ach).map((l) => [l.status, Math.sign(l.amount ?? 0)])).toEqual([
      ['failed R01', -1],
      ['processing', 1],
    ])
    expect(of(card)).toMatchObject([
      {kind: 'deposit', what: 'card top-up', status: 'completed', otherSide: 'pm_card_visa'},
    ])
    expect(of(refund)).toMatchObject([{kind: 'refund', otherSide: card, walletId: usd}])
    expect(of(refund)[0]!.amount).toBeLessThan(0)
    const kinds = new Set(timeline.map((l) => l.kind))
    for (const kind of ['deposit', 'transfer', 'refund', 'roundup', 'bnpl', 'wallet', 'event'])
      expect(kinds, kind).toContain(kind)
    expect(timeline.find((l) => l.kind === 'transfer')).toMatchObject({what: 'transfer out', otherSide: bobs})
    expect(timeline.find((l) => l.kind === 'roundup' && l.source === 'ledger')).toMatchObject({
      what: 'round-up transfer',
      otherSide: bobs,
    })
    expect(timeline.find((l) => l.kind === 'bnpl' && l.source === 'ledger')).toMatchObject({
      what: 'BNPL instalment 1 of 4',
      otherSide: 'Shoes',
      amount: -2000,
    })
  })

  it("shows each webhook delivery's outcome: the one that failed, then succeeded", async () => {
    const {timeline} = await story('users', 'inspect', ada, '--kind', 'event')
    expect(timeline.every((l) => l.kind === 'event')).toBe(true)
    const retried = timeline.filter((l) => l.deliveries?.some((d) => d.attempts > 1))
    expect(retried).toHaveLength(1)
    expect(retried[0]).toMatchObject({what: 'transaction.completed', status: 'delivered on try 2'})
    expect(retried[0]!.deliveries![0]!.tries.map((t) => t.status)).toEqual([500, 200])
    expect(timeline.filter((l) => l.what === 'transaction.failed').map((l) => l.otherSide)).toContain(ach)
  })

  it('narrows to a wallet, a kind or a window, and reverses with --oldest-first', async () => {
    const onlyEur = await story('users', 'inspect', ada, '--wallet', eur)
    expect(onlyEur.wallets.map((w) => w.id)).toEqual([eur])
    expect(onlyEur.timeline.filter((l) => l.walletId !== undefined).every((l) => l.walletId === eur)).toBe(
      true,
    )
    expect(sumOf(onlyEur.timeline, eur)).toBe(onlyEur.wallets[0]!.balance.total)
    const refunds = await story('users', 'inspect', '--kind', 'refund', ada)
    expect(refunds.timeline.map((l) => l.id)).toEqual([refund])
    const two = await story('users', 'inspect', ada, '--kind', 'refund,transfer')
    expect(new Set(two.timeline.map((l) => l.kind))).toEqual(new Set(['refund', 'transfer']))
    // The service's now is the partner's clock, three days ahead: nothing happened in its last day.
    expect((await story('users', 'inspect', ada, '--since', '24h')).timeline).toEqual([])
    const newest = (await story('users', 'inspect', ada)).timeline
    const oldest = (await story('users', 'inspect', ada, '--oldest-first')).timeline
    expect(oldest.map((l) => l.id)).toEqual(newest.map((l) => l.id).reverse())
    const ndjson = await cli('users', 'inspect', ada, '--output', 'ndjson')
    const records = ndjson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line)
    expect(records.map((l) => l.id)).toEqual(newest.map((l) => l.id))
    expect(records.every((l) => Object.keys(l.sourceIds).length > 0)).toBe(true)
  })

  it("wallets inspect tells one wallet's story; errors name the flag or the record", async () => {
    const s = await story('wallets', 'inspect', usd)
    expect(s.user.id).toBe(ada)
    expect(s.wallets.map((w) => w.id)).toEqual([usd])
    expect(sumOf(s.timeline, usd)).toBe(s.wallets[0]!.balance.total)
    expect(s.timeline.some((l) => l.walletId === eur)).toBe(false)
    const notHers = await cli('users', 'inspect', ada, '--wallet', bobs)
    expect(notHers.exitCode).toBe(2)
    expect(notHers.stderr).toContain('--wallet')
    const unknown = await cli('users', 'inspect', 'usr_000000000000000000000000')
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('NOT_FOUND')
    const bare = await cli('users', 'inspect')
    expect(bare.exitCode).toBe(2)
    expect(bare.stderr).toMatch(/Missing 1 required arg:\s+user/)
  })
})

describe('users inspect in an 80-column terminal', () => {
  it.runIf(hasScript)(
    'fits every line, cuts no id, time or amount, and shows times where the person is',
    async () => {
      const {lines, code} = await screenOf(['users', 'inspect', ada], {
        cols: 80,
        configDir: sandbox.configDir,
        env: {TZ: 'Asia/Kolkata'},
      })
      expect(code, lines.join('\n')).toBe(0)
      const long = lines.filter((l) => l.length > 80)
      expect(long, lines.join('\n')).toEqual([])
      const text = lines.join('\n')
      expect(text).not.toContain('…')
      for (const wanted of [
        usd,
        eur,
        card,
        ach,
        'failed R01',
        'processing',
        'delivered on try 2',
        'BNPL instalment',
      ])
        expect(text, wanted).toContain(wanted)
      // The window in the terminal's zone; the table's times in the short form the width rules give.
      expect(text).toMatch(/Timeline, newest first: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30 to now/)
      expect(lines.some((l) => /^\d{2}-\d{2} \d{2}:\d{2}\s/.test(l))).toBe(true)
      expect(text).toMatch(/-25\.00 USD/)
      const utc = await screenOf(['users', 'inspect', ada, '--utc'], {cols: 80, configDir: sandbox.configDir})
      expect(utc.lines.join('\n')).toMatch(/Timeline, newest first: \S+Z to now/)
    },
  )
})

describe('users inspect streams', () => {
  it('prints its first screen while the later pages are still on their way', async () => {
    const busy = await id(
      'users',
      'create',
      '--email',
      'busy@example.test',
      '--first-name',
      'B',
      '--last-name',
      'Y',
    )
    const wallet = await id('wallets', 'create', '--user', busy, '--currency', 'GBP')
    for (let batch = 0; batch < 12; batch++) {
      await Promise.all(
        Array.from({length: 10}, (_, i) =>
          id(
            'transactions',
            'create',
            '--method',
            'card',
            '--amount',
            `${batch + 1}.${10 + i}GBP`,
            '--to',
            wallet,
            '--payment-method',
            'pm_card_visa',
          ),
        ),
      )
    }
    // Every page after the first is held until the first screen is on stdout.
    let release: () => void = () => undefined
    const released = new Promise<'pass'>((resolve) => {
      release = () => resolve('pass')
    })
    const held: string[] = []
    const proxy = await startFaultProxy(sandbox.url, (req) => {
      if (!req.url?.includes('cursor=')) return 'pass'
      held.push(req.url)
      return released
    })
    try {
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.js'), 'users', 'inspect', busy], {
        env: cliEnv(sandbox.configDir, {PAYCTL_BASE_URL: proxy.url}),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      const firstScreen = new Promise<void>((resolve) =>
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
          if ((out.match(/ txn_/g) ?? []).length >= 5) resolve()
        }),
      )
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
      await firstScreen
      // The next page of each source was asked for, and none has been answered.
      expect(held.some((path) => path.startsWith('/v1/transactions?'))).toBe(true)
      expect(proxy.seen.filter((r) => r.path.includes('cursor='))).toEqual([])
      expect(out).not.toContain('wallet.created')
      release()
      expect(await exited).toBe(0)
      // 120 top-ups, each a ledger line and an event, and the wallet's creation.
      expect(out.match(/ txn_\w+/g)?.length).toBe(240)
      expect(out).toContain('wallet.created')
    } finally {
      release()
      await proxy.close()
    }
  }, 120_000)
})
