import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor, ROOT} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {hasScript, screenOf} from '../helpers/terminal.js'

/**
 * Tables in a terminal fit its width: payctl in a pseudo-terminal, against the shop fixture in a
 * sandbox served in the test process. In a pipe they keep every column:
 * test/commands/finding-users.test.ts.
 */

let sandbox: LocalSandbox
const cli = (...args: string[]) => cliFor(sandbox, {timeoutMs: 60_000})(...args)

/** Run payctl in a real pseudo-terminal of `cols` columns; what the terminal shows, without styles. */
async function inTerminal(cols: number, ...args: string[]): Promise<string[]> {
  const {lines, code} = await screenOf(args, {cols, configDir: sandbox.configDir})
  expect(code, lines.join('\n')).toBe(0)
  return lines
}

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  const seeded = await cli('seed', join(ROOT, 'examples/fixtures/shop.yaml'), '--json')
  expect(seeded.exitCode, seeded.stderr).toBe(0)
})
afterAll(async () => {
  await sandbox.stop()
})

// Each test a process in a terminal of its own: all at once.
describe.runIf(hasScript)('tables in a terminal', () => {
  it.concurrent('fit an 80-column terminal, with every id whole, and say what --wide would show', async () => {
    const ids = (await cli('transactions', 'list', '--json'))
      .json<{transactions: {id: string}[]}>()
      .transactions.map((t) => t.id)
    expect(ids.length).toBeGreaterThan(2)
    const lines = await inTerminal(80, 'transactions', 'list')
    for (const line of lines) expect(line.trimEnd().length, line).toBeLessThanOrEqual(80)
    const text = lines.join('\n')
    for (const id of ids) expect(text).toContain(id)
    expect(text).toContain('--wide')
    expect(lines.find((l) => l.startsWith('ID'))).toMatch(/STATUS/)
  })

  it.concurrent('--wide shows every column, however narrow the terminal', async () => {
    const lines = await inTerminal(80, 'transactions', 'list', '--wide')
    const header = lines.find((l) => l.startsWith('ID'))!
    for (const column of ['NET', 'FROM', 'TO', 'CREATED']) expect(header).toContain(column)
    expect(lines.join('\n')).not.toContain('--wide')
  })

  it.concurrent('a wider terminal shows more columns', async () => {
    const [narrow, wide] = (
      await Promise.all([inTerminal(80, 'wallets', 'list'), inTerminal(200, 'wallets', 'list')])
    ).map((lines) => lines.find((l) => l.startsWith('ID'))!)
    expect(wide!.split(/\s{2,}/).length).toBeGreaterThan(narrow!.split(/\s{2,}/).length)
  })
})

// `script` without a size gives a pseudo-terminal of 0 columns: a terminal with no width.
describe.runIf(hasScript)('tables in a terminal that reports no width', () => {
  const widest = (lines: string[]) => Math.max(...lines.map((l) => l.trimEnd().length))

  it.concurrent('fit COLUMNS when it is set, else 80 columns', async () => {
    const [wide, narrow] = await Promise.all(
      [{COLUMNS: undefined}, {COLUMNS: '60'}].map(async (env) => {
        const {lines, code} = await screenOf(['bnpl', 'payments', 'list'], {
          cols: 0,
          configDir: sandbox.configDir,
          env,
        })
        expect(code, lines.join('\n')).toBe(0)
        expect(lines.find((l) => l.startsWith('ID'))).toBeDefined()
        return lines
      }),
    )
    // Piped, the same list is wider than either: there is something to fit.
    const piped = (await cli('bnpl', 'payments', 'list')).stdout.split('\n')
    expect(widest(piped)).toBeGreaterThan(80)
    expect(widest(wide!), wide!.join('\n')).toBeLessThanOrEqual(80)
    expect(widest(narrow!), narrow!.join('\n')).toBeLessThanOrEqual(60)
  })
})
