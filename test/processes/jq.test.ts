import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor, payctlBuiltFast, runCli} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {type ListenProcess, startListen} from '../helpers/webhooks-listen.js'

/**
 * `--jq` in payctl processes, from the build (`npm run build` first): the one-call fast path hands
 * a run with it to the full CLI, and a stream (`webhooks listen`) goes through the expression one
 * line at a time. The expressions themselves: test/commands/jq.test.ts.
 */

let sandbox: LocalSandbox
let wallet: string

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  const cli = cliFor(sandbox)
  const user = await cli(
    'users',
    'create',
    '--email',
    'ada@example.test',
    '--first-name',
    'A',
    '--last-name',
    'L',
  )
  expect(user.exitCode, user.stderr).toBe(0)
  const made = await cli('wallets', 'create', '--user', user.stdout.trim(), '--currency', 'USD')
  expect(made.exitCode, made.stderr).toBe(0)
  wallet = made.stdout.trim()
})
afterAll(async () => {
  await sandbox.stop()
})

describe('a one-call command with --jq', () => {
  it('is handed by the fast path to the full CLI, which filters the record', async () => {
    const r = await runCli(['wallets', 'get', wallet, '--jq', '.id'], {configDir: sandbox.configDir})
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, `${wallet}\n`, ''])

    const fast = await payctlBuiltFast(['wallets', 'get', wallet, '--jq', '.currency'], {
      configDir: sandbox.configDir,
    })
    expect([fast.exitCode, fast.stdout, fast.handedOver]).toEqual([0, 'USD\n', true])
    // Without it, the fast path still finishes the run itself.
    const plain = await payctlBuiltFast(['wallets', 'get', wallet, '--json'], {configDir: sandbox.configDir})
    expect([plain.exitCode, plain.handedOver]).toEqual([0, false])
  })

  it('is refused before anything is sent when the expression does not compile', async () => {
    const sent = sandbox.log()
    const r = await runCli(['wallets', 'get', wallet, '--jq', '.['], {configDir: sandbox.configDir})
    expect([r.exitCode, r.stdout]).toEqual([2, ''])
    expect(r.stderr).toMatch(/^INVALID_JQ: --jq: syntax error/)
    expect(sandbox.log()).toBe(sent)
  })
})

describe('webhooks listen --jq', () => {
  let listen: ListenProcess | undefined
  afterAll(() => listen?.kill('SIGKILL'))

  it('filters each line; a line it fails on is told on stderr, the stream goes on, and it exits 1', async () => {
    // A wallet.created fails the expression; the card event after it is printed.
    const expression =
      'if .type == "event" and .event == "wallet.created" then error("not this one") else {type, event} end'
    listen = startListen(['--jq', expression], {configDir: sandbox.configDir})
    await listen.waitFor((l) => l.type === 'ready')
    expect(listen.lines[0]).toEqual({type: 'ready', event: null})
    const res = await fetch(`${sandbox.url}/_sandbox/trigger`, {
      method: 'POST',
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({event: 'walletsvc.card.created'}),
    })
    expect(res.status).toBeLessThan(300)
    await listen.waitFor((l) => l.type === 'event' && l.event === 'walletsvc.card.created')
    expect(listen.stderr()).toContain('JQ_FAILED: --jq failed on the output: not this one')
    expect(listen.lines.map((l) => l.event)).not.toContain('wallet.created')
    listen.kill('SIGINT')
    expect(await listen.exited).toBe(1)
  })
})
