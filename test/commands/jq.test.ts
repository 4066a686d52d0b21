import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * `--jq EXPR` on the JSON a command prints (docs/output.md#filtering-json-with---jq): jq's own
 * language, its results printed as gh prints them, an expression that does not compile refused
 * before anything is sent, and one that fails on the output told without losing what was made.
 */

let sandbox: LocalSandbox
let cli: Cli
let ada: string
let usd: string
let eur: string

/** A run that must succeed: its stdout. */
const out = async (...args: string[]) => {
  const r = await cli(...args)
  expect(r.exitCode, r.stderr).toBe(0)
  return r.stdout
}

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox)
  ada = (
    await out('users', 'create', '--email', 'ada@example.test', '--first-name', 'Ada', '--last-name', 'L')
  ).trim()
  usd = (await out('wallets', 'create', '--user', ada, '--currency', 'USD', '--label', 'Main')).trim()
  eur = (await out('wallets', 'create', '--user', ada, '--currency', 'EUR')).trim()
})
afterAll(async () => {
  await sandbox.stop()
})

describe('--jq on a record and on a list', () => {
  // [command after its words, expression, what stdout holds]
  const cases: [string, string[], string, () => string][] = [
    ['a path to a string prints it raw', ['wallets', 'get', 'W'], '.id', () => `${usd}\n`],
    ['a path into an array', ['wallets', 'list', '--user', 'U'], '.wallets[1].id', () => `${eur}\n`],
    [
      'select',
      ['wallets', 'list', '--user', 'U'],
      '.wallets[] | select(.currency == "USD") | .label',
      () => 'Main\n',
    ],
    [
      'map, as compact JSON',
      ['wallets', 'list', '--user', 'U'],
      '.wallets | map(.currency) | sort',
      () => '["EUR","USD"]\n',
    ],
    ['length, a number', ['wallets', 'list', '--user', 'U'], '.wallets | length', () => '2\n'],
    ['string interpolation', ['wallets', 'get', 'W'], '"\\(.id) \\(.currency)"', () => `${usd} USD\n`],
    [
      '@csv, one line per result',
      ['wallets', 'list', '--user', 'U'],
      '.wallets[] | [.id, .currency] | @csv',
      () => `"${usd}","USD"\n"${eur}","EUR"\n`,
    ],
    [
      '.[] gives a line per item, each object compact',
      ['wallets', 'list', '--user', 'U'],
      '.wallets[] | {id, currency}',
      () => `{"id":"${usd}","currency":"USD"}\n{"id":"${eur}","currency":"EUR"}\n`,
    ],
    [
      'an object with its amounts as integers',
      ['wallets', 'get', 'W'],
      '.balance | {available, currency}',
      () => '{"available":0,"currency":"USD"}\n',
    ],
    ['a string inside JSON stays JSON', ['wallets', 'get', 'W'], '[.label]', () => '["Main"]\n'],
    ['null prints an empty line', ['wallets', 'get', 'W'], '.nothing', () => '\n'],
    ['booleans as they are', ['wallets', 'get', 'W'], '.label == "Main", has("id")', () => 'true\ntrue\n'],
    ['nothing at all for no result', ['wallets', 'get', 'W'], 'empty', () => ''],
  ]
  const argv = (words: string[]) => words.map((w) => (w === 'W' ? usd : w === 'U' ? ada : w))

  it.each(cases)('%s', async (_, words, expression, expected) => {
    expect(await out(...argv(words), '--jq', expression)).toBe(expected())
  })

  it('needs no --json, and gives the same with it', async () => {
    expect(await out('wallets', 'get', usd, '--json', '--jq', '.id')).toBe(`${usd}\n`)
    expect(await out('wallets', 'get', usd, `--jq=.currency`)).toBe('USD\n')
  })

  it('runs on what a mutation returns, which is made once', async () => {
    const label = await out('wallets', 'create', '--user', ada, '--currency', 'GBP', '--jq', '.currency')
    expect(label).toBe('GBP\n')
    expect(await out('wallets', 'list', '--user', ada, '--jq', '.wallets | length')).toBe('3\n')
  })
})

describe('--jq on a list of every page (--all)', () => {
  let dir: string
  beforeAll(async () => {
    // More users than one page holds (100), made at once by a fixture.
    dir = mkdtempSync(join(tmpdir(), 'payctl-jq-'))
    const fixture = join(dir, 'users.yaml')
    writeFileSync(
      fixture,
      'version: 1\nname: many\nusers:\n  u:\n    count: 105\n    email: u{{n}}@example.test\n    first_name: U\n    last_name: N{{n}}\n',
    )
    await out('seed', fixture, '--rate', 'off', '--json')
  }, 60_000)
  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('takes the whole list as one document, as --json prints it', async () => {
    const whole = await out('users', 'list', '--all', '--json')
    const doc = JSON.parse(whole) as {users: {id: string}[]; hasMore: boolean}
    expect(doc.users.length).toBe(106)
    expect(await out('users', 'list', '--all', '--jq', '.users | length')).toBe('106\n')
    expect(await out('users', 'list', '--all', '--jq', '.hasMore, .nextCursor')).toBe('false\n\n')
    expect(await out('users', 'list', '--all', '--jq', '.users[].id')).toBe(
      doc.users.map((u) => `${u.id}\n`).join(''),
    )
    // One page without --all: it says there is more.
    expect(await out('users', 'list', '--jq', '.hasMore')).toBe('true\n')
  })
})

describe('an expression that does not compile', () => {
  it('is a usage error naming --jq and jq’s message, and nothing is sent', async () => {
    const before = sandbox.log()
    const count = await out('users', 'list', '--all', '--jq', '.users | length')
    const sent = sandbox.log()
    const r = await cli(
      'users',
      'create',
      '--email',
      'never@example.test',
      '--first-name',
      'N',
      '--last-name',
      'S',
      '--jq',
      '.id |',
    )
    expect(r.exitCode).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^INVALID_JQ: --jq: syntax error, unexpected end of file/)
    expect(r.stderr).toContain('expression: .id |')
    // The sandbox saw no request of that run: not even a token.
    expect(sandbox.log()).toBe(sent)
    expect(sent.length).toBeGreaterThan(before.length)
    expect(await out('users', 'list', '--all', '--jq', '.users | length')).toBe(count)
  })

  it('is refused for an unknown function or variable too, with or without --json', async () => {
    const fn = await cli('wallets', 'get', usd, '--jq', 'nosuch(1)')
    expect([fn.exitCode, fn.stdout]).toEqual([2, ''])
    expect(fn.stderr).toContain('nosuch/1 is not defined')
    const variable = await cli('wallets', 'get', usd, '--json', '--jq', '$x')
    expect([variable.exitCode, variable.stdout]).toEqual([2, ''])
    expect(variable.stderr).toContain('$x is not defined')
  })
})

describe('an expression that fails on the output', () => {
  it('exits 1 with jq’s error, and says the command itself succeeded, with the id it made', async () => {
    const r = await cli('wallets', 'create', '--user', ada, '--currency', 'JPY', '--jq', '.id | tonumber')
    expect(r.exitCode).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(
      /^JQ_FAILED: --jq failed on the output: string \("wal_\w+(\.\.\.)?"\) cannot be parsed as a number\n/,
    )
    const id = /id: (wal_\w+)/.exec(r.stderr)?.[1]
    expect(r.stderr).toContain(`The command itself succeeded (id ${id})`)
    expect(await out('wallets', 'get', id!, '--jq', '.currency')).toBe('JPY\n')
  })

  it('prints the results it gave before failing', async () => {
    const r = await cli('wallets', 'list', '--user', ada, '--jq', '.wallets[] | .currency, error("stop")')
    expect(r.exitCode).toBe(1)
    expect(r.stdout).toMatch(/^[A-Z]{3}\n$/)
    expect(r.stderr).toContain('JQ_FAILED: --jq failed on the output: stop')
  })
})

describe('errors under --jq', () => {
  it('go to stderr as without --json: the expression is for what a command gives', async () => {
    for (const json of [[], ['--json']]) {
      const r = await cli('wallets', 'get', 'wal_nobody', ...json, '--jq', '.id')
      expect(r.exitCode).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/^\w+: /)
    }
    const usage = await cli('wallets', 'get', usd, '--jq', '.id', '--no-such-flag')
    expect([usage.exitCode, usage.stdout]).toEqual([2, ''])
  })
})

describe('payctl api --jq', () => {
  it('runs on the response body, and not on an error', async () => {
    expect(await out('api', 'GET', `/v1/wallets/${usd}`, '--jq', '(.data // .) | .currency')).toBe('USD\n')
    const r = await cli('api', 'GET', '/v1/wallets/wal_nobody', '--jq', '.')
    expect(r.exitCode).toBe(1)
    expect(r.stdout).toBe('')
  })
})
