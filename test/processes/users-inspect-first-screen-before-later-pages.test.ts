import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it, vi} from 'vitest'
import {cliEnv, ROOT} from '../helpers/cli.js'
import {startFaultProxy} from '../helpers/fault-proxy.js'
import {type LocalSandbox, postToSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * `users inspect` streams: its first screen is on stdout while the later pages are still on their
 * way. A process of its own, whose stdout the test reads while it runs; the sandbox runs in the
 * test's process.
 */
let sandbox: LocalSandbox
let busy: string

/** Setup goes straight to the sandbox over HTTP. */
const api = <T>(path: string, body: unknown) => postToSandbox<T>(sandbox, path, body)

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  busy = (await api<{id: string}>('/users', {email: 'busy@example.test', first_name: 'B', last_name: 'Y'})).id
  const wallet = (await api<{id: string}>('/wallets', {userId: busy, currency: 'GBP'})).id
  for (let batch = 0; batch < 12; batch++) {
    await Promise.all(
      Array.from({length: 10}, (_, i) =>
        api('/transactions', {
          method: 'card',
          amount: (batch + 1) * 100 + 10 + i,
          currency: 'GBP',
          destinationWalletId: wallet,
          paymentMethodId: 'pm_card_visa',
        }),
      ),
    )
  }
})
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
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'run.js'), 'users', 'inspect', busy, '--events'],
      {
        env: cliEnv(sandbox.configDir, {PAYCTL_BASE_URL: proxy.url}),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    const firstScreen = new Promise<void>((resolve) =>
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString()
        if ((out.match(/ txn_/g) ?? []).length >= 5) resolve()
      }),
    )
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
    await firstScreen
    // The next page of each source is asked for (it may still be on its way when the first screen
    // is out), and none has been answered.
    await vi.waitFor(() => expect(held.some((path) => path.startsWith('/v1/transactions?'))).toBe(true), {
      timeout: 30_000,
    })
    expect(proxy.seen.filter((r) => r.path.includes('cursor='))).toEqual([])
    expect(out).not.toContain('wallet.created')
    release()
    expect(await exited).toBe(0)
    // 120 top-ups, each a ledger line and (--events) an event, and the wallet's creation.
    expect(out.match(/ txn_\w+/g)?.length).toBe(240)
    expect(out).toContain('wallet.created')
  } finally {
    release()
    await proxy.close()
  }
}, 120_000)
