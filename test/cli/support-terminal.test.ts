import {execFileSync, spawn} from 'node:child_process'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliEnv, ROOT, runCli} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

const BIN = join(ROOT, 'bin', 'run.js')
let sandbox: SandboxProcess
const cli = (...args: string[]) => runCli(args, {configDir: sandbox.configDir, timeoutMs: 60_000})
const id = async (...args: string[]) => {
  const r = await cli(...args)
  expect(r.exitCode, r.stderr).toBe(0)
  return r.stdout.trim()
}

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

/**
 * Run payctl in a real pseudo-terminal and answer its prompts: each step waits for a text on the
 * screen, then types its keys. Resolves with the screen text once payctl exits.
 */
function converse(args: string[], steps: [RegExp, string][]): Promise<{screen: string; code: number | null}> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')
  const child = spawn('script', ['-qec', `stty cols 120; ${command}`, '/dev/null'], {
    env: cliEnv(sandbox.configDir, {CI: undefined}),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let screen = ''
  let step = 0
  let seenUpTo = 0
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`stuck at step ${step}:\n${stripVTControlCharacters(screen)}`))
    }, 20_000)
    child.stdout.on('data', (c: Buffer) => {
      screen += c.toString()
      const plain = stripVTControlCharacters(screen)
      while (step < steps.length && steps[step]![0].test(plain.slice(seenUpTo))) {
        seenUpTo = plain.length
        child.stdin.write(steps[step]![1])
        step++
      }
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({screen: stripVTControlCharacters(screen), code})
    })
  })
}

let user: string
let own: string
let savings: string
beforeAll(async () => {
  sandbox = await startSandboxProcess()
  user = await id('users', 'create', '--email', 'sam@example.test', '--first-name', 'Sam', '--last-name', 'S')
  own = await id('wallets', 'create', '--user', user, '--currency', 'USD', '--initial-balance', '100.00USD')
  const keeper = await id(
    'users',
    'create',
    '--email',
    'vault@example.test',
    '--first-name',
    'V',
    '--last-name',
    'V',
  )
  savings = await id('wallets', 'create', '--user', keeper, '--currency', 'USD')
})
afterAll(async () => {
  await sandbox.stop()
})

describe('the support person’s terminal', () => {
  it.runIf(hasScript)(
    'the round-ups walkthrough refuses the user’s own wallet when it is typed, before any confirmation',
    async () => {
      const {screen} = await converse(
        ['roundups', 'settings', 'set', user],
        [
          [/Multiplier/, '\r'],
          [/Cap per purchase/, '\r'],
          [/Destination account/, `${own}\r`],
          [/own USD wallet/, '\x15'], // the refusal is on screen: clear the answer
          [/Destination account/, `${savings}\r`],
          [/Turn round-ups on/, 'y\r'],
        ],
      )
      expect(screen).toContain('where the round-ups come from')
      // Refused at the question, so the confirmation came after the valid answer only.
      expect(screen.indexOf('own USD wallet')).toBeLessThan(screen.indexOf('Turn round-ups on'))
      const settings = await cli('roundups', 'settings', 'get', user, '--json')
      expect(settings.json()).toMatchObject({destination_account_id: savings, enabled: true})
    },
  )

  it('a failed ACH deposit shows no fee line', async () => {
    const txn = await id(
      'transactions',
      'create',
      '--method',
      'ach',
      '--amount',
      '10000',
      '--currency',
      'USD',
      '--to',
      own,
      '--payment-method',
      'pm_ach_returned',
    )
    expect((await cli('sandbox', 'advance', '3d')).exitCode).toBe(0)
    const shown = await cli('transactions', 'get', txn)
    expect(shown.stdout).toMatch(/status\s+failed/)
    expect(shown.stdout).toContain('failure reason')
    expect(shown.stdout).not.toMatch(/^fee\s/m)
  })

  it('users are dated by the sandbox clock, like wallets', async () => {
    expect((await cli('sandbox', 'advance', '42d')).exitCode).toBe(0)
    const later = await id(
      'users',
      'create',
      '--email',
      'late@example.test',
      '--first-name',
      'L',
      '--last-name',
      'L',
    )
    const wallet = await id('wallets', 'create', '--user', later, '--currency', 'EUR')
    const u = (await cli('users', 'get', later, '--json')).json<{createdAt?: string; created_at?: string}>()
    const w = (await cli('wallets', 'get', wallet, '--json')).json<{createdAt: string}>()
    const userCreated = Date.parse(u.createdAt ?? u.created_at ?? '')
    // A user is never younger than its wallet, and both are six weeks ahead of the wall clock.
    expect(userCreated).toBeLessThanOrEqual(Date.parse(w.createdAt))
    expect(Date.parse(w.createdAt) - userCreated).toBeLessThan(60_000)
    expect(userCreated - Date.now()).toBeGreaterThan(41 * 86_400_000)
  })
})
