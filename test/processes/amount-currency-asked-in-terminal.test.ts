import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type AmountParties, amountCommands, amountParties} from '../helpers/amount-commands.js'
import {cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {converse, hasScript} from '../helpers/terminal.js'

/**
 * A bare amount with no currency is asked for where someone can answer: payctl in a real
 * pseudo-terminal (the rest of the rule, refused without one: test/commands/amounts.test.ts).
 */
let sandbox: LocalSandbox
let parties: AmountParties
beforeAll(async () => {
  sandbox = await startLocalSandbox()
  parties = await amountParties(cliFor(sandbox))
})
afterAll(async () => {
  await sandbox.stop()
})

// Each a terminal of its own: they run side by side.
describe.concurrent.each(amountCommands(() => parties))('%s', (_, args) => {
  it.runIf(hasScript)('asks for the currency in a terminal', async () => {
    const {screen, code} = await converse(args('1234'), [[/Currency/, 'USD\r']], {
      configDir: sandbox.configDir,
    })
    expect(code, screen).toBe(0)
    expect(screen).toMatch(/Currency/)
    expect(screen).not.toMatch(/MISSING_FLAG/)
  })
})

describe('a bare integer in a terminal', () => {
  // A newcomer types 10 meaning ten dollars: the question says it is ten cents, and how to say ten dollars.
  it.runIf(hasScript)('says what it is in the smallest unit, and takes 10.00USD instead', async () => {
    const args = amountCommands(() => parties).find(([name]) => name === 'transactions create')![1]
    const {screen, code} = await converse(args('10'), [[/Currency/, '10.00USD\r']], {
      configDir: sandbox.configDir,
    })
    expect(code, screen).toBe(0)
    expect(screen).toContain('Currency: 10 = 0.10 USD (the smallest unit); for 10 dollars, type 10.00USD')
    expect(screen).toMatch(/amount\s+10\.00 USD/)
    expect(screen).not.toMatch(/AMOUNT_TOO_SMALL/)
  })
})
