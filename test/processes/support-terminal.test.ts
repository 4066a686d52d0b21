import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {hasScript, converse as talk} from '../helpers/terminal.js'

/**
 * The support person's terminal: a walkthrough that asks its questions in a pseudo-terminal, against
 * a sandbox served in the test process. What they read in a pipe: test/commands/finding-users.test.ts.
 */

let sandbox: LocalSandbox
const cli = (...args: string[]) => cliFor(sandbox, {timeoutMs: 60_000})(...args)
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
  sandbox = await startLocalSandbox()
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
})
