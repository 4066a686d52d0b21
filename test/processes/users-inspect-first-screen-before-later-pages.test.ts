import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {cliEnv, cliFor, ROOT} from '../helpers/cli.js'
import {startFaultProxy} from '../helpers/fault-proxy.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * `users inspect` streams: its first screen is on stdout while the later pages are still on their
 * way. A process of its own, whose stdout the test reads while it runs; the sandbox and the records
 * are made in the test's process.
 */
let sandbox: LocalSandbox
let busy: string
beforeAll(async () => {
  sandbox = await startLocalSandbox()
  const cli = cliFor(sandbox, {timeoutMs: 60_000})
  const id = async (...args: string[]) => {
    const r = await cli(...args)
    expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    return r.stdout.trim()
  }
  busy = await id('users', 'create', '--email', 'busy@example.test', '--first-name', 'B', '--last-name', 'Y')
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
}, 120_000)
afterAll(async () => {
  await sandbox?.stop()
})

it('prints its first screen while the later pages are still on their way', async () => {
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
