import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliEnv, cliFor, ROOT} from '../helpers/cli.js'
import {BIDI, C1_SHOWN, ESC, type HostileRecords, hostileRecords} from '../helpers/hostile-values.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {hasScript} from '../helpers/terminal.js'

/**
 * Values from the service that would drive a terminal (test/helpers/hostile-values.ts), shown in
 * a real one: escaped, beside payctl's own colours; and Ctrl-C in a terminal. What is printed in a
 * pipe: test/commands/service-values-escaped.test.ts.
 */

const BIN = join(ROOT, 'bin', 'run.js')

/**
 * Run payctl in a pseudo-terminal of 100 columns (through `script`), feeding `keys` to it once
 * its output matches `when`. Returns the terminal's output and payctl's exit code.
 */
async function inTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: {when?: RegExp; keys?: string; timeoutMs?: number} = {},
): Promise<{code: number | null; out: string}> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')
  const child = spawn('script', ['-qec', `stty cols 100; exec ${command}`, '/dev/null'], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let sent = false
  const onData = (c: Buffer) => {
    out += c.toString()
    if (!sent && opts.when?.test(out)) {
      sent = true
      child.stdin.write(opts.keys ?? '')
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000)
  const [code] = await once(child, 'close')
  clearTimeout(timer)
  return {code: code as number | null, out}
}

// The sandbox is served here; only the payctl in the terminal is a process.
let sandbox: LocalSandbox
let records: HostileRecords

beforeAll(async () => {
  // ACH settles only after an hour: --wait has something to wait for.
  sandbox = await startLocalSandbox({settleAfterSeconds: 3600})
  records = await hostileRecords(cliFor(sandbox))
})
afterAll(() => sandbox.stop())

describe.concurrent('values from the service cannot drive the terminal', () => {
  it.runIf(hasScript)(
    'escapes C1 and bidi controls in every human format in a terminal',
    async () => {
      const env = cliEnv(sandbox.configDir, {NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined})
      const {user, eurWallet, cardEvent} = records
      const runs = [
        ['wallets', 'list', '--user', user, '--wide'],
        ['wallets', 'list', '--user', user, '--output', 'csv'],
        ['wallets', 'list', '--user', user, '--output', 'yaml'],
        ['wallets', 'get', eurWallet],
        ['events', 'list'],
        ['events', 'list', '--output', 'csv'],
        ['events', 'list', '--output', 'yaml'],
        ['events', 'get', cardEvent],
      ]
      // Each in a terminal of its own, all at once.
      const shown = await Promise.all(runs.map((args) => inTerminal(args, env)))
      for (const [i, args] of runs.entries()) {
        const r = shown[i]!
        expect(r.code, `${args.join(' ')}\n${r.out.slice(-1500)}`).toBe(0)
        // payctl's own colours and spinner are the only escape sequences: no C1 nor bidi control.
        expect(r.out, args.join(' ')).not.toMatch(
          new RegExp(`[${String.fromCharCode(128)}-${String.fromCharCode(159)}]`),
        )
        expect(r.out, args.join(' ')).not.toMatch(BIDI)
        if (args[0] === 'wallets' || args[1] === 'get') expect(r.out, args.join(' ')).toContain(C1_SHOWN)
      }
    },
    60_000,
  )

  it.runIf(hasScript)('keeps payctl’s own colours in a terminal while escaping the label', async () => {
    // A person's terminal: CI set (as in a CI run) would make Node report no colours.
    const env = cliEnv(sandbox.configDir, {NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined})
    const r = await inTerminal(['wallets', 'get', records.wallet], env)
    expect(r.code, r.out.slice(-1500)).toBe(0)
    expect(r.out).toContain(`${ESC}[32mactive${ESC}[39m`)
    expect(r.out).toContain('Savings\\x1b]52;c;aGVsbG8=\\x07')
    expect(r.out).not.toContain(`${ESC}]`)
  })
})

describe('Ctrl-C while transactions create waits', () => {
  it.runIf(hasScript)(
    'prints the transaction id and how to follow it, exits 130 and records it in the audit log',
    async () => {
      const env = cliEnv(sandbox.configDir)
      const args = ['transactions', 'create', '--method', 'ach', '--amount', '5000', '--currency', 'USD']
      const r = await inTerminal(
        [...args, '--to', records.wallet, '--payment-method', 'pm_ach_success', '--wait'],
        env,
        {when: /Waiting for txn_[0-9a-f]+ to settle/, keys: String.fromCharCode(3)},
      )
      expect(r.code, r.out.slice(-1500)).toBe(130)
      const id = /Waiting for (txn_[0-9a-f]+)/.exec(r.out)?.[1]
      expect(id).toBeDefined()
      // After the spinner's line is gone, the id is still on the screen, with the command to follow it.
      const after = r.out.slice(r.out.lastIndexOf('Interrupted.'))
      expect(after).toContain(`payctl transactions get ${id}`)
      const entries = readFileSync(join(sandbox.configDir, 'audit.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(entries.at(-1)).toMatchObject({
        command: expect.stringContaining('payctl transactions create'),
        outcome: 'error',
        code: 'INTERRUPTED',
        exitCode: 130,
        note: expect.stringContaining(id!),
        requestCount: 1,
      })
    },
    60_000,
  )
})
