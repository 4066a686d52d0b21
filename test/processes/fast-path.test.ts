import {spawn} from 'node:child_process'
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliEnv, ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {
  type ReferenceService,
  type ResponseShape,
  startReferenceService,
} from '../helpers/reference-service.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

/**
 * bin/run.js runs the one-call commands on a fast path that never loads oclif (src/cli/fast-path.ts).
 * Every one of them, run with the fast path and without it (PAYCTL_FAST_PATH=0), must print the
 * same bytes on stdout and stderr and exit with the same code: against a sandbox process and
 * against the reference service in both response shapes, for a record as JSON and as a card,
 * under --debug, for an id nobody has, and for a cached token the service refuses (renewed from
 * the profile's credentials), with the same audit log and requests. A trace of the modules each
 * run loads tells which path ran it: the fast path alone where it finishes, the full CLI where it
 * hands over.
 */

const TRACE_HOOK = `data:text/javascript,${encodeURIComponent(`
import {registerHooks} from 'node:module'
import {appendFileSync} from 'node:fs'
registerHooks({load(url, context, next) {
  if (url.endsWith('/bundle/main.js')) appendFileSync(process.env.PAYCTL_TEST_TRACE, 'main\\n')
  return next(url, context)
}})`)}`

interface Run {
  stdout: string
  stderr: string
  exitCode: number
  /** Whether the full CLI (oclif) was loaded. */
  full: boolean
  /** The profile file and audit log afterwards. */
  audit: string | undefined
}

/** One process of bin/run.js on a config dir of its own, copied from `configDir`. */
async function run(args: string[], configDir: string, env: Record<string, string> = {}): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-fast-'))
  chmodSync(dir, 0o700)
  cpSync(configDir, dir, {recursive: true})
  try {
    return await runIn(args, dir, env)
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** One process of bin/run.js on `dir`, as it is. */
async function runIn(args: string[], dir: string, env: Record<string, string> = {}): Promise<Run> {
  const trace = join(dir, 'trace')
  rmSync(trace, {force: true})
  try {
    const result = await new Promise<{stdout: string; stderr: string; exitCode: number}>(
      (resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', TRACE_HOOK, join(ROOT, 'bin', 'run.js'), ...args],
          {
            env: cliEnv(dir, {...env, PAYCTL_TEST_TRACE: trace}),
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        )
        let stdout = ''
        let stderr = ''
        child.stdout.on('data', (c: Buffer) => (stdout += c))
        child.stderr.on('data', (c: Buffer) => (stderr += c))
        child.on('error', reject)
        child.on('close', (code) => resolve({stdout, stderr, exitCode: code ?? -1}))
      },
    )
    const audit = join(dir, 'audit.log')
    return {
      ...result,
      full: existsSync(trace),
      audit: existsSync(audit) ? readFileSync(audit, 'utf8') : undefined,
    }
  } finally {
    rmSync(trace, {force: true})
  }
}

/** What differs from one call to the next whatever path runs it: request ids, times, durations. */
function stable(text: string): string {
  return text
    .replace(/req_[0-9a-f]+/g, 'req_…')
    .replace(/\(\d+ ms\)/g, '(… ms)')
    .replace(/"(date|timestamp)":"[^"]*"/g, '"$1":"…"')
}

/** The same command with the fast path and without it: the same output, exit code and audit log. */
async function same(args: string[], configDir: string): Promise<{fast: Run; full: Run}> {
  const [fast, full] = await Promise.all([
    run(args, configDir),
    run(args, configDir, {PAYCTL_FAST_PATH: '0'}),
  ])
  expect(full.full).toBe(true)
  const view = (r: Run) => ({
    exitCode: r.exitCode,
    stdout: stable(r.stdout),
    stderr: stable(r.stderr),
    audit: r.audit,
  })
  expect(view(fast), `payctl ${args.join(' ')}`).toEqual(view(full))
  return {fast, full}
}

/** The one-call commands, each with the id of a record it reads. */
type Reads = [command: string[], id: () => string][]

/**
 * Every command both ways, as JSON and as a card, of a record and of an id nobody has: a record the
 * fast path prints itself, a refusal it hands to the full CLI with the answer.
 */
function equalityCases(name: string, commands: string[][], setup: () => {configDir: string; reads: Reads}) {
  for (const command of commands) {
    it.concurrent(`${name}: ${command.join(' ')}, a record and an id nobody has`, {
      timeout: 120_000,
    }, async () => {
      const {configDir, reads} = setup()
      const id = reads.find(([c]) => c.join(' ') === command.join(' '))![1]
      for (const target of [id(), 'nobodys_id_0123456789']) {
        for (const flags of [['--json'], []]) {
          const {fast} = await same([...command, target, ...flags], configDir)
          // A refusal goes to the full CLI; an answer it takes (the reference service answers any
          // id of a record it shows nothing of) the fast path prints.
          expect(fast.full, `${command.join(' ')} ${target} ${flags}`).toBe(fast.exitCode !== 0)
        }
      }
    })
  }
}

const ONE_CALL = [
  ['users', 'get'],
  ['users', 'balance'],
  ['wallets', 'get'],
  ['wallets', 'balance'],
  ['transactions', 'get'],
  ['events', 'get'],
  ['bnpl', 'payments', 'get'],
  ['roundups', 'settings', 'get'],
  ['roundups', 'pending'],
]

/** A refused token in the profile file: the same signature cut short. */
function spoilToken(configDir: string): void {
  const path = join(configDir, 'profiles.json')
  const file = JSON.parse(readFileSync(path, 'utf8'))
  for (const profile of Object.values(file.profiles) as {token?: {accessToken: string}}[]) {
    if (profile.token) profile.token.accessToken = `${profile.token.accessToken.slice(0, -6)}AAAAAA`
  }
  writeFileSync(path, JSON.stringify(file, null, '\t'), {mode: 0o600})
}

describe('the fast path against a sandbox process', () => {
  let sandbox: SandboxProcess
  const reads: Reads = []
  const ids: Record<string, string> = {}
  const cli = async (...args: string[]) => {
    const r = await runCli(args, {configDir: sandbox.configDir})
    expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    return r.stdout.trim()
  }

  beforeAll(async () => {
    sandbox = await startSandboxProcess()
    ids.user = await cli(
      'users',
      'create',
      '--email',
      'fast@example.test',
      '--first-name',
      'F',
      '--last-name',
      'P',
    )
    ids.wallet = await cli(
      'wallets',
      'create',
      '--user',
      ids.user,
      '--currency',
      'USD',
      '--initial-balance',
      '100000',
    )
    ids.savings = await cli('wallets', 'create', '--user', ids.user, '--currency', 'EUR')
    ids.transaction = await cli(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '25.00USD',
      '--to',
      ids.wallet,
      '--payment-method',
      'pm_card_visa',
    )
    const events = JSON.parse(await cli('events', 'list', '--json')) as {events: {id: string}[]}
    ids.event = events.events[0]!.id
    // A BNPL payment of a user of its own, whose instalments fall due while the tests run: the
    // records the tests read must not change under them.
    const shopper = await cli(
      'users',
      'create',
      '--email',
      'bnpl@example.test',
      '--first-name',
      'B',
      '--last-name',
      'N',
    )
    await cli('wallets', 'create', '--user', shopper, '--currency', 'USD', '--initial-balance', '100000')
    ids.bnpl = await cli(
      'bnpl',
      'payments',
      'create',
      '--user',
      shopper,
      '--amount',
      '240.00USD',
      '--merchant',
      'Allbirds',
    )
    const other = await cli(
      'users',
      'create',
      '--email',
      'save@example.test',
      '--first-name',
      'S',
      '--last-name',
      'V',
    )
    const destination = await cli('wallets', 'create', '--user', other, '--currency', 'USD')
    await cli(
      'roundups',
      'enable',
      ids.user,
      '--multiplier',
      '2',
      '--max',
      '5',
      '--destination-account',
      destination,
    )
    await cli(
      'roundups',
      'process',
      '--user',
      ids.user,
      '--amount',
      '4.35',
      '--merchant',
      'Blue Bottle',
      '--transaction-id',
      'pos_1',
    )
    reads.push(
      [['users', 'get'], () => ids.user!],
      [['users', 'balance'], () => ids.user!],
      [['wallets', 'get'], () => ids.wallet!],
      [['wallets', 'balance'], () => ids.wallet!],
      [['transactions', 'get'], () => ids.transaction!],
      [['events', 'get'], () => ids.event!],
      [['bnpl', 'payments', 'get'], () => ids.bnpl!],
      [['roundups', 'settings', 'get'], () => ids.user!],
      [['roundups', 'pending'], () => ids.user!],
    )
  }, 120_000)
  afterAll(async () => {
    await sandbox.stop()
  })

  equalityCases('sandbox', ONE_CALL, () => ({configDir: sandbox.configDir, reads}))

  it.concurrent('sandbox: --debug shows the same request and answer lines', {timeout: 120_000}, async () => {
    for (const [command, id] of reads) {
      const {fast} = await same([...command, id(), '--debug', '--json'], sandbox.configDir)
      expect(fast.full).toBe(false)
      expect(fast.stderr).toMatch(/^--> GET http:\/\/127\.0\.0\.1:\d+\/v1\//)
    }
  })

  it.concurrent('sandbox: a refused token is renewed from the profile, as the full CLI does', {
    timeout: 180_000,
  }, async () => {
    const temp = tempConfigDir()
    try {
      cpSync(sandbox.configDir, temp.dir, {recursive: true})
      spoilToken(temp.dir)
      for (const [command, id] of reads) {
        for (const flags of [['--json'], ['--debug']]) {
          const {fast} = await same([...command, id(), ...flags], temp.dir)
          expect(fast.exitCode, fast.stderr).toBe(0)
          expect(fast.full).toBe(true)
        }
      }
    } finally {
      temp.cleanup()
    }
  })

  it.concurrent('roundups pending takes its own flags on the fast path', {timeout: 120_000}, async () => {
    for (const flags of [
      ['--output', 'csv'],
      ['-o', 'yaml'],
      ['--columns=id,merchant', '--output', 'csv'],
      ['--fields', 'id', '--wide'],
    ]) {
      const {fast} = await same(['roundups', 'pending', ids.user!, ...flags], sandbox.configDir)
      expect(fast.full, flags.join(' ')).toBe(false)
    }
    // A column the list does not have: refused by the printer, and said by the full CLI.
    const {fast} = await same(['roundups', 'pending', ids.user!, '--columns=nope'], sandbox.configDir)
    expect([fast.exitCode, fast.full]).toEqual([2, true])
  })

  it.concurrent('hands over what it does not understand, before sending anything', {
    timeout: 120_000,
  }, async () => {
    for (const args of [
      ['wallets', 'get', ids.wallet!, '--help'],
      ['wallets', 'get', ids.wallet!, '--nope'],
      ['wallets', 'get', ids.wallet!, '--json', '--json'],
      ['wallets', 'get', ids.wallet!, '--profile', ''],
      ['wallets', 'get', ids.wallet!, ids.wallet!],
      ['wallets', 'get', '--', ids.wallet!],
      ['wallets', 'get', ''],
      ['wallets:get', ids.wallet!],
      ['roundups', 'pending', ids.user!, '--output', 'xml'],
      ['wallets', 'get', ids.wallet!, '--profile', 'nobody'],
    ]) {
      const {fast} = await same(args, sandbox.configDir)
      expect(fast.full, args.join(' ')).toBe(true)
    }
  })
})

/** Log in to a reference service as `sandbox`: the fast path leaves environments with a banner to the full CLI. */
async function logIn(service: ReferenceService, configDir: string): Promise<void> {
  const c = service.credentials
  const login = await runCli(
    [
      'auth',
      'login',
      '--env',
      'sandbox',
      '--base-url',
      service.url,
      '--api-key',
      c.apiKey,
      '--partner-id',
      c.partnerId,
      '--api-secret',
      '-',
    ],
    {configDir, input: `${c.apiSecret}\n`},
  )
  expect(login.exitCode, login.stderr).toBe(0)
}

describe.each<ResponseShape>(['envelope', 'direct'])(
  'the fast path against the reference service, %s shape',
  (shape) => {
    let service: ReferenceService
    const temp = tempConfigDir()
    const ids: Record<string, string> = {}
    const reads: Reads = [
      [['users', 'get'], () => ids.user!],
      [['users', 'balance'], () => ids.user!],
      [['wallets', 'get'], () => ids.wallet!],
      [['wallets', 'balance'], () => ids.wallet!],
      [['transactions', 'get'], () => 'txn_ref'],
      [['events', 'get'], () => 'evt_ref'],
      [['bnpl', 'payments', 'get'], () => 'bnpl_ref_1'],
      [['roundups', 'settings', 'get'], () => ids.user!],
      [['roundups', 'pending'], () => ids.user!],
    ]

    beforeAll(async () => {
      service = await startReferenceService({shape})
      await logIn(service, temp.dir)
      const user = await runCli(
        ['users', 'create', '--email', 'r@example.test', '--first-name', 'R', '--last-name', 'F'],
        {configDir: temp.dir},
      )
      ids.user = user.stdout.trim()
      const wallet = await runCli(['wallets', 'create', '--user', ids.user, '--currency', 'USD'], {
        configDir: temp.dir,
      })
      ids.wallet = wallet.stdout.trim()
    }, 60_000)
    afterAll(async () => {
      temp.cleanup()
      await service.close()
    })

    equalityCases(shape, ONE_CALL, () => ({configDir: temp.dir, reads}))

    it.concurrent(`${shape}: the service gets the same requests either way, never one twice`, {
      timeout: 120_000,
    }, async () => {
      // A service of its own, so that only these runs' requests reach it.
      const own = await startReferenceService({shape})
      const mine = tempConfigDir()
      const spoilt = tempConfigDir()
      try {
        await logIn(own, mine.dir)
        const user = (
          await runCli(
            ['users', 'create', '--email', 'q@example.test', '--first-name', 'Q', '--last-name', 'R'],
            {configDir: mine.dir},
          )
        ).stdout.trim()
        const wallet = (
          await runCli(['wallets', 'create', '--user', user, '--currency', 'USD'], {configDir: mine.dir})
        ).stdout.trim()
        cpSync(mine.dir, spoilt.dir, {recursive: true})
        spoilToken(spoilt.dir)
        for (const args of [
          ['wallets', 'get', wallet],
          ['wallets', 'get', 'wal_nobody'],
          ['users', 'get', user],
        ]) {
          for (const [dir, refreshed] of [
            [mine.dir, false],
            [spoilt.dir, true],
          ] as const) {
            const seen: string[][] = []
            for (const env of [{}, {PAYCTL_FAST_PATH: '0'}] as Record<string, string>[]) {
              const before = own.requests.length
              const r = await run(args, dir, env)
              expect(r.exitCode === 0).toBe(args[2] !== 'wal_nobody')
              seen.push(own.requests.slice(before).map((q) => `${q.method} ${q.path}`))
            }
            expect(seen[0]).toEqual(seen[1])
            expect(seen[0]).toHaveLength(refreshed ? 3 : 1)
          }
        }
      } finally {
        mine.cleanup()
        spoilt.cleanup()
        await own.close()
      }
    })
  },
)

describe('help from a rendering an earlier run kept', () => {
  const fresh = () => {
    const temp = tempConfigDir()
    chmodSync(temp.dir, 0o700)
    return temp
  }
  const helpDir = (dir: string) => join(dir, 'cache', 'help')

  it.concurrent('is kept by the first run, printed by the next without oclif, byte for byte', {
    timeout: 60_000,
  }, async () => {
    const temp = fresh()
    try {
      for (const args of [
        ['--help'],
        ['wallets'],
        ['help', 'wallets', 'get'],
        ['bnpl', 'payments', '--help'],
        [],
      ]) {
        const first = await runIn(args, temp.dir)
        const second = await runIn(args, temp.dir)
        const without = await runIn(args, temp.dir, {PAYCTL_FAST_PATH: '0'})
        expect([first.full, second.full], args.join(' ')).toEqual([true, false])
        expect(second).toEqual({...first, full: false})
        expect(without.stdout).toBe(first.stdout)
        expect(first.exitCode).toBe(0)
      }
    } finally {
      temp.cleanup()
    }
  })

  it.concurrent('is never printed for other arguments, another width or colour, a new build or a theme', {
    timeout: 60_000,
  }, async () => {
    const temp = fresh()
    try {
      const root = await runIn(['--help'], temp.dir)
      expect((await runIn(['--help'], temp.dir)).full).toBe(false)
      // Another command's help, the same help asked otherwise, and an unknown topic.
      for (const args of [['wallets', '--help'], ['help'], ['nosuch', '--help']]) {
        const r = await runIn(args, temp.dir)
        expect(r.full, args.join(' ')).toBe(true)
      }
      expect((await runIn(['wallets', '--help'], temp.dir)).stdout).not.toBe(root.stdout)
      // Another width, or another colour setting: rendered again (and kept apart).
      const narrow = await runIn(['--help'], temp.dir, {OCLIF_COLUMNS: '50'})
      expect(narrow.full).toBe(true)
      expect(narrow.stdout).not.toBe(root.stdout)
      const coloured = await runIn(['--help'], temp.dir, {FORCE_COLOR: '1'})
      expect(coloured.full).toBe(true)
      expect(await runIn(['--help'], temp.dir, {FORCE_COLOR: '1'})).toEqual({...coloured, full: false})
      expect((await runIn(['--help'], temp.dir)).stdout).toBe(root.stdout)
      // A file whose first line names other arguments is not served.
      const [build] = readdirSync(helpDir(temp.dir))
      for (const name of readdirSync(join(helpDir(temp.dir), build!))) {
        const path = join(helpDir(temp.dir), build!, name)
        writeFileSync(path, readFileSync(path, 'utf8').replace('"argv":["--help"]', '"argv":["--hel"]'))
      }
      expect((await runIn(['--help'], temp.dir)).full).toBe(true)
      // Another build's renderings are not served, and go when this build keeps one.
      renameSync(join(helpDir(temp.dir), build!), join(helpDir(temp.dir), 'another-build'))
      expect((await runIn(['wallets'], temp.dir)).full).toBe(true)
      expect(readdirSync(helpDir(temp.dir))).toEqual([build])
      // A theme styles oclif's help: nothing is kept or served while there is one.
      writeFileSync(join(temp.dir, 'theme.json'), '{}')
      expect((await runIn(['wallets'], temp.dir)).full).toBe(true)
      expect((await runIn(['wallets'], temp.dir)).full).toBe(true)
    } finally {
      temp.cleanup()
    }
  })
})
