import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runCli} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {hasScript, converse as talk} from '../helpers/terminal.js'

let sandbox: SandboxProcess
const cli = (...args: string[]) => runCli(args, {configDir: sandbox.configDir, timeoutMs: 60_000})
const id = async (...args: string[]) => {
  const r = await cli(...args)
  expect(r.exitCode, r.stderr).toBe(0)
  return r.stdout.trim()
}

const converse = (args: string[], steps: [RegExp, string][]) =>
  talk(args, steps, {configDir: sandbox.configDir})

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
