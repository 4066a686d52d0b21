import {execFileSync, spawn} from 'node:child_process'
import {once} from 'node:events'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliEnv, payctl, ROOT} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

const BIN = join(ROOT, 'bin', 'run.js')
let sandbox: SandboxProcess
const cli = (...args: string[]) => payctl(args, {configDir: sandbox.configDir, timeoutMs: 60_000})

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

/** Run payctl in a real pseudo-terminal of `cols` columns; what the terminal shows, without styles. */
async function inTerminal(cols: number, ...args: string[]): Promise<string[]> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')
  const child = spawn('script', ['-qec', `stty cols ${cols}; ${command}`, '/dev/null'], {
    env: cliEnv(sandbox.configDir, {CI: undefined}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString()
  })
  const [code] = await once(child, 'close')
  expect(code, out).toBe(0)
  return stripVTControlCharacters(out)
    .split(/\r?\n/)
    .map((l) => l.replace(/\r/g, ''))
    .filter((l) => l.trim() !== '')
}

beforeAll(async () => {
  sandbox = await startSandboxProcess()
  const seeded = await cli('seed', join(ROOT, 'examples/fixtures/shop.yaml'), '--json')
  expect(seeded.exitCode, seeded.stderr).toBe(0)
})
afterAll(async () => {
  await sandbox.stop()
})

describe.runIf(hasScript)('tables in a terminal', () => {
  it('fit an 80-column terminal, with every id whole, and say what --wide would show', async () => {
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

  it('--wide shows every column, however narrow the terminal', async () => {
    const lines = await inTerminal(80, 'transactions', 'list', '--wide')
    const header = lines.find((l) => l.startsWith('ID'))!
    for (const column of ['NET', 'FROM', 'TO', 'CREATED']) expect(header).toContain(column)
    expect(lines.join('\n')).not.toContain('--wide')
  })

  it('a wider terminal shows more columns', async () => {
    const narrow = (await inTerminal(80, 'wallets', 'list')).find((l) => l.startsWith('ID'))!
    const wide = (await inTerminal(200, 'wallets', 'list')).find((l) => l.startsWith('ID'))!
    expect(wide.split(/\s{2,}/).length).toBeGreaterThan(narrow.split(/\s{2,}/).length)
  })
})

describe('tables in a pipe', () => {
  it('keep every column, as before', async () => {
    const r = await cli('transactions', 'list')
    expect(r.exitCode).toBe(0)
    const header = r.stdout.split('\n')[0]!
    for (const column of ['ID', 'TYPE', 'STATUS', 'AMOUNT', 'NET', 'FROM', 'TO', 'CREATED'])
      expect(header).toContain(column)
    expect(r.stderr).not.toContain('--wide')
  })
})
