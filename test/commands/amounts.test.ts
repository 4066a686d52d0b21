import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {moneyFrom} from '../../src/cli/amounts.js'
import {scriptedPrompter} from '../../src/cli/runtime/prompter.js'
import {Questions} from '../../src/cli/runtime/questions.js'
import {type AmountParties, amountCommands, amountParties} from '../helpers/amount-commands.js'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * One rule for every command that takes --amount and --currency: the currency comes from the flag
 * or the amount's suffix; a bare amount with neither is asked for in a terminal (in a process:
 * test/processes/amount-currency-asked-in-terminal.test.ts) and refused otherwise (exit 2), naming
 * both ways to give it, never taken for USD.
 */
let sandbox: LocalSandbox
let cli: Cli
const id = async (...args: string[]) => {
  const r = await cli(...args)
  expect(r.exitCode, r.stderr).toBe(0)
  return r.stdout.trim()
}

let parties: AmountParties
beforeAll(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox)
  parties = await amountParties(cli)
})
afterAll(async () => {
  await sandbox.stop()
})

const COMMANDS = amountCommands(() => parties)

describe.each(COMMANDS)('%s', (_, args) => {
  it('refuses a bare integer without a currency with exit 2, naming both ways to give it', async () => {
    const r = await cli(...args('1234'))
    expect(r.exitCode, r.stdout).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^MISSING_FLAG: --amount 1234 has no currency/)
    expect(r.stderr).toContain('--currency USD (1234 in its smallest unit: 12.34 USD)')
    expect(r.stderr).toContain('1234USD (1234 USD)')
    const json = await cli(...args('1234'), '--json')
    expect(json.exitCode).toBe(2)
    expect(json.json<{error: {code: string; details: unknown}}>().error).toMatchObject({
      code: 'MISSING_FLAG',
      details: {flag: '--currency'},
    })
  })

  it('takes 12.34USD, and 1234 with --currency USD', async () => {
    for (const given of [args('12.34USD'), [...args('1234'), '--currency', 'USD']]) {
      const r = await cli(...given, '--json')
      expect(r.exitCode, r.stdout + r.stderr).toBe(0)
    }
  })
})

describe('the currency given twice', () => {
  it('refuses a suffix that is not the --currency given', async () => {
    const r = await cli(...COMMANDS[2]![1]('12.34EUR'), '--currency', 'USD')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/INVALID_AMOUNT: amount "12.34EUR" is in EUR but the currency is USD/)
  })
})

describe('amounts in the currency of a record', () => {
  it('transactions refund takes 5.00USD of a USD payment, and refuses 5.00EUR', async () => {
    const deposit = COMMANDS.find(([name]) => name === 'transactions create')![1]
    const txn = await id(...deposit('20.00USD'))
    const euros = await cli('transactions', 'refund', txn, '--amount', '5.00EUR')
    expect(euros.exitCode).toBe(2)
    expect(euros.stderr).toMatch(/INVALID_AMOUNT: amount "5.00EUR" is in EUR but the currency is USD/)
    const refund = await cli('transactions', 'refund', txn, '--amount', '5.00USD', '--json')
    expect(refund.exitCode, refund.stderr).toBe(0)
    expect(refund.json()).toMatchObject({amount: 500, currency: 'USD'})
  })

  it('wallets update takes limits as 500.00USD of a USD wallet, and refuses another currency', async () => {
    const euros = await cli('wallets', 'update', parties.wallet, '--limit-transaction', '500.00EUR')
    expect(euros.exitCode).toBe(2)
    expect(euros.stderr).toMatch(/INVALID_AMOUNT: amount "500.00EUR" is in EUR but the currency is USD/)
    const r = await cli('wallets', 'update', parties.wallet, '--limit-transaction', '500.00USD', '--json')
    expect(r.exitCode, r.stdout).toBe(0)
    expect(r.json<{limits: {transaction: number}}>().limits.transaction).toBe(50_000)
  })

  it('round-ups take 4.35USD and 5USD in USD, and refuse another currency', async () => {
    const process = (amount: string) =>
      cli(
        'roundups',
        'process',
        '--user',
        parties.alice,
        '--amount',
        amount,
        '--merchant',
        'Cafe',
        '--transaction-id',
        `pos_${amount}`,
        '--json',
      )
    const euros = await process('4.35EUR')
    expect(euros.exitCode).toBe(2)
    expect(euros.json<{error: {message: string}}>().error.message).toBe(
      '--amount is in EUR but the round-ups are in USD',
    )
    expect((await process('4.35USD')).exitCode).toBe(0)
    const set = await cli('roundups', 'settings', 'set', parties.alice, '--max', '5USD', '--json')
    expect(set.exitCode, set.stderr).toBe(0)
    expect(set.json()).toMatchObject({max_roundup_amount: 5})
    expect((await cli('roundups', 'settings', 'set', parties.alice, '--max', '5EUR')).exitCode).toBe(2)
    // Moving the round-ups to euros with a cap in euros names the currency they will be in.
    const moved = await cli(
      'roundups',
      'settings',
      'set',
      parties.alice,
      '--currency',
      'EUR',
      '--max',
      '5USD',
    )
    expect(moved.stderr).toMatch(/--max is in USD but the round-ups are in EUR/)
  })
})

describe('the rule, in process', () => {
  const questions = (interactive: boolean, answers: unknown[]) => {
    const prompter = scriptedPrompter(answers)
    return {prompter, questions: new Questions(prompter, () => interactive)}
  }

  it('asks for the currency of a bare amount where someone can answer, and only then', async () => {
    const asked = questions(true, ['eur'])
    expect(await moneyFrom({amount: '1234'}, asked.questions, '1234 or 12.34USD')).toEqual({
      amount: 1234,
      currency: 'EUR',
      text: '1234',
    })
    expect(asked.prompter.asked).toEqual([
      'Currency: 1234 = 12.34 USD (the smallest unit); for 1234 dollars, type 1234.00USD',
    ])
    const given = questions(true, [])
    expect(await moneyFrom({amount: '12.34USD'}, given.questions, '')).toMatchObject({amount: 1234})
    expect(given.prompter.asked).toEqual([])
  })

  it('takes a bare integer again with its currency, in place of it, at the currency question', async () => {
    const asked = questions(true, ['10.00USD'])
    expect(await moneyFrom({amount: '10'}, asked.questions, '1234 or 12.34USD')).toEqual({
      amount: 1000,
      currency: 'USD',
      text: '10.00USD',
    })
    // Neither a currency nor an amount with its currency: asked again, saying both.
    const refused = questions(true, ['10.00'])
    await expect(moneyFrom({amount: '10'}, refused.questions, '')).rejects.toThrow(
      /refused: one of USD, .*, or an amount with its currency \(10\.00USD\)$/,
    )
  })

  it('asks for the amount too, then its currency, when neither is given', async () => {
    const asked = questions(true, ['5.00', 'GBP'])
    await expect(moneyFrom({decimal: true}, asked.questions, '1999 or 19.99USD')).resolves.toMatchObject({
      amount: 500,
      currency: 'GBP',
    })
    expect(asked.prompter.asked).toEqual(['Amount (e.g. 1999 or 19.99USD)', 'Currency'])
  })

  it('names both ways where nobody can answer, and --decimal reads major units', async () => {
    await expect(moneyFrom({amount: '5', decimal: true}, questions(false, []).questions, '')).rejects.toThrow(
      '--amount 5 has no currency: give it with --currency USD (5 USD), or append it to the amount: 5USD',
    )
  })
})
