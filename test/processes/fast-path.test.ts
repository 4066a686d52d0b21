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
import {cliEnv, cliFor, payctlBuilt, payctlBuiltFast, ROOT, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {
  type ReferenceService,
  type ResponseShape,
  startReferenceService,
} from '../helpers/reference-service.js'

/**
 * bin/run.js runs the one-call commands on a fast path that never loads oclif (src/cli/fast-path/fast-path.ts).
 * Every one of them, run with the fast path and without it (PAYCTL_FAST_PATH=0), must print the
 * same bytes on stdout and stderr and exit with the same code: against a sandbox and
 * against the reference service in both response shapes, for a record as JSON and as a card,
 * under --debug, for an id nobody has, and for a cached token the service refuses (renewed from
 * the profile's credentials), with the same audit log and, at the reference service, the same
 * requests. A trace of the modules each run loads tells which path ran it: the fast path alone
 * where it finishes, the full CLI where it hands over.
 *
 * Each command's JSON forms run as processes of bin/run.js, whose module trace tells which path ran
 * them; every other form runs in this process from the same build (payctlBuiltFast: its fast path,
 * then the full CLI with what it handed over), as do the full CLI runs they are compared with (as a
 * process prints them: test/processes/in-process.test.ts). The records they read are made in this
 * process (payctl()), every suite and test runs at once, and the processes wait for one of a few
 * slots, which keeps two cores busy without piling runs on them.
 */

/** Long enough for a test whose processes queue behind every other test's on a busy machine. */
const TIMEOUT = 300_000

const TRACE_HOOK = `data:text/javascript,${encodeURIComponent(`
import {registerHooks} from 'node:module'
import {appendFileSync} from 'node:fs'
registerHooks({load(url, context, next) {
  if (url.endsWith('/bundle/main.js')) appendFileSync(process.env.PAYCTL_TEST_TRACE, 'main\\n')
  return next(url, context)
}})`)}`

/** At most `size` at once of what is given to the returned function; the rest wait their turn. */
function slots(size: number): <T>(work: () => Promise<T>) => Promise<T> {
  let free = size
  const waiting: (() => void)[] = []
  return async (work) => {
    if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve))
    else free--
    try {
      return await work()
    } finally {
      const next = waiting.shift()
      if (next === undefined) free++
      else next()
    }
  }
}

/** The payctl processes of this file that run at once (each is ~0.2 s of CPU and a few ms of waiting). */
const inSlot = slots(4)

interface Run {
  stdout: string
  stderr: string
  exitCode: number
  /** Whether the full CLI (oclif) was loaded. */
  full: boolean
  /** The profile file and audit log afterwards. */
  audit: string | undefined
}

/**
 * How a run of bin/run.js goes: as a process, or in this process from the same build (its fast
 * path, then the full CLI with what it handed over), which prints the same, without the start of a
 * process. A process tells by its trace whether oclif was loaded; a run here, by the handover.
 */
type How = 'process' | 'in-process'

/** One run of bin/run.js on a config dir of its own, copied from `configDir`. */
async function run(
  args: string[],
  configDir: string,
  env: Record<string, string> = {},
  how: How = 'in-process',
): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-fast-'))
  chmodSync(dir, 0o700)
  cpSync(configDir, dir, {recursive: true})
  try {
    if (how === 'process') return await runIn(args, dir, env)
    const r = await payctlBuiltFast(args, {configDir: dir, env})
    const audit = join(dir, 'audit.log')
    return {
      stdout: r.stdout,
      stderr: r.stderr,
      exitCode: r.exitCode,
      full: r.handedOver,
      audit: existsSync(audit) ? readFileSync(audit, 'utf8') : undefined,
    }
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

let traces = 0

/** One process of bin/run.js on `dir`, as it is. */
async function runIn(args: string[], dir: string, env: Record<string, string> = {}): Promise<Run> {
  // Of this run alone: runs on the same dir may overlap.
  const trace = join(tmpdir(), `payctl-fast-trace-${process.pid}-${traces++}`)
  try {
    const result = await inSlot(
      () =>
        new Promise<{stdout: string; stderr: string; exitCode: number}>((resolve, reject) => {
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
        }),
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

/**
 * The full CLI as the build bundles it (what bin/run.js loads where the fast path hands over), run
 * in this process on a config dir of its own copied from `configDir`: the same build, without the
 * start of a process, which test/processes/in-process.test.ts holds to print what a process prints.
 */
async function full(args: string[], configDir: string): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-full-'))
  chmodSync(dir, 0o700)
  cpSync(configDir, dir, {recursive: true})
  try {
    const r = await payctlBuilt(args, {configDir: dir})
    const audit = join(dir, 'audit.log')
    return {...r, full: true, audit: existsSync(audit) ? readFileSync(audit, 'utf8') : undefined}
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** What differs from one call to the next whatever path runs it: request ids, times, durations. */
function stable(text: string): string {
  return text
    .replace(/req_[0-9a-f]+/g, 'req_…')
    .replace(/\(\d+ ms\)/g, '(… ms)')
    .replace(/"(date|timestamp)":"[^"]*"/g, '"$1":"…"')
}

/**
 * The same command with the fast path (a process of bin/run.js) and without it (the full CLI of the
 * same build): the same output, exit code and audit log. Given the `service` that alone gets this
 * test's requests, the two run one after the other and must send it the same requests, each once
 * (`requests` of them; one, a GET, unless told).
 */
async function same(
  args: string[],
  configDir: string,
  at?: {service: ReferenceService; requests?: number},
  how: How = 'in-process',
): Promise<{fast: Run; full: Run}> {
  const label = `payctl ${args.join(' ')} (${how})`
  const withFastPath = (a: string[], dir: string) => run(a, dir, {}, how)
  let fast: Run
  let whole: Run
  if (at === undefined) {
    ;[fast, whole] = await Promise.all([withFastPath(args, configDir), full(args, configDir)])
  } else {
    const seen: string[][] = []
    const runs: Run[] = []
    for (const path of [withFastPath, full]) {
      const before = at.service.requests.length
      runs.push(await path(args, configDir))
      seen.push(at.service.requests.slice(before).map((q) => `${q.method} ${q.path}`))
    }
    ;[fast, whole] = runs as [Run, Run]
    expect(seen[0], label).toEqual(seen[1])
    expect(seen[0], label).toHaveLength(at.requests ?? 1)
  }
  const view = (r: Run) => ({
    exitCode: r.exitCode,
    stdout: stable(r.stdout),
    stderr: stable(r.stderr),
    audit: r.audit,
  })
  expect(view(fast), label).toEqual(view(whole))
  return {fast, full: whole}
}

/** The one-call commands, each with the id of a record it reads. */
type Reads = [command: string[], id: () => string][]

/** Where a test's runs go: a config dir, what its records are, and a service of the test's own. */
interface Target {
  configDir: string
  reads: Reads
  /** The commands whose record the service answers (exit 0), and that refuse an id nobody has. */
  answers?: {record: string[]; refuses: string[]}
  /** The service that gets this test's requests and no other's, closed with `close`. */
  own?: {service: ReferenceService; close: () => Promise<void>}
}

const NOBODY = 'nobodys_id_0123456789'

/** One run of an equality case: a record's id or NOBODY's, with these flags, run `how`. */
type Case = readonly [what: 'record' | 'nobody', flags: string[], how: How]

/**
 * Every command both ways, of a record and of an id nobody has, in each of `cases`' forms: a record
 * the fast path prints itself, a refusal it hands to the full CLI with the answer. Under --debug,
 * the fast path's own request and answer lines come first.
 */
function equalityCases(name: string, commands: string[][], cases: Case[], target: () => Promise<Target>) {
  for (const command of commands) {
    it(`${name}: ${command.join(' ')}, a record and an id nobody has`, {timeout: TIMEOUT}, async () => {
      const {configDir, reads, answers, own} = await target()
      try {
        const id = reads.find(([c]) => c.join(' ') === command.join(' '))![1]
        const check = async ([which, flags, how]: Case) => {
          const what = which === 'record' ? id() : NOBODY
          const label = `${command.join(' ')} ${what} ${flags} (${how})`
          const {fast} = await same([...command, what, ...flags], configDir, own, how)
          // A refusal goes to the full CLI; an answer it takes (the reference service answers any
          // id of a record it shows nothing of) the fast path prints.
          expect(fast.full, label).toBe(fast.exitCode !== 0)
          const known = what === NOBODY ? answers?.refuses : answers?.record
          if (known?.includes(command.join(' '))) expect(fast.exitCode === 0, label).toBe(what !== NOBODY)
          if (flags.includes('--debug') && !fast.full)
            expect(fast.stderr, label).toMatch(/^--> GET http:\/\/127\.0\.0\.1:\d+\/v1\//)
        }
        // A service tells whose requests it got only while one process at a time asks it.
        if (own === undefined) await Promise.all(cases.map(check))
        else for (const c of cases) await check(c)
      } finally {
        await own?.close()
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

// Every suite at once, their tests sharing the slots for processes (inSlot). The help tests come
// first: each is one long chain of runs on one config dir, which the others' runs fill around.
describe.concurrent('help from a rendering an earlier run kept', () => {
  const fresh = () => {
    const temp = tempConfigDir()
    chmodSync(temp.dir, 0o700)
    return temp
  }
  const helpDir = (dir: string) => join(dir, 'cache', 'help')

  it('is kept by the first run, printed by the next without oclif, byte for byte', {
    timeout: TIMEOUT,
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
        // Without the fast path nothing is kept or read: it may run beside the second run.
        const [second, without] = await Promise.all([
          runIn(args, temp.dir),
          runIn(args, temp.dir, {PAYCTL_FAST_PATH: '0'}),
        ])
        expect([first.full, second.full], args.join(' ')).toEqual([true, false])
        expect(second).toEqual({...first, full: false})
        expect(without.stdout).toBe(first.stdout)
        expect(first.exitCode).toBe(0)
      }
    } finally {
      temp.cleanup()
    }
  })

  it('is never printed for other arguments, another width or colour, a new build or a theme', {
    timeout: TIMEOUT,
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

describe.concurrent('the fast path against a sandbox', () => {
  let sandbox: LocalSandbox
  const reads: Reads = []
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    // Served in this process, as the records are made: only the reading is the fast path's. Its
    // payments settle at once, so that what the tests read is done changing before they start.
    sandbox = await startLocalSandbox({settleAfterSeconds: 0})
    const cli = cliFor(sandbox)
    const id = async (...args: string[]) => {
      const r = await cli(...args)
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      return r.stdout.trim()
    }
    ids.user = await id(
      'users',
      'create',
      '--email',
      'fast@example.test',
      '--first-name',
      'F',
      '--last-name',
      'P',
    )
    ids.wallet = await id(
      'wallets',
      'create',
      '--user',
      ids.user,
      '--currency',
      'USD',
      '--initial-balance',
      '100000',
    )
    ids.savings = await id('wallets', 'create', '--user', ids.user, '--currency', 'EUR')
    ids.transaction = await id(
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
    const events = JSON.parse(await id('events', 'list', '--json')) as {events: {id: string}[]}
    ids.event = events.events[0]!.id
    // A BNPL payment of a user of its own, whose instalments fall due while the tests run: the
    // records the tests read must not change under them.
    const shopper = await id(
      'users',
      'create',
      '--email',
      'bnpl@example.test',
      '--first-name',
      'B',
      '--last-name',
      'N',
    )
    await id('wallets', 'create', '--user', shopper, '--currency', 'USD', '--initial-balance', '100000')
    ids.bnpl = await id(
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
    // Its first instalment is collected at the sandbox's next tick, and the payment shown changes
    // then: the tests read it once that is done, so that the two runs of a comparison never fall
    // either side of it.
    const deadline = Date.now() + 120_000
    const status = async () =>
      (JSON.parse(await id('bnpl', 'payments', 'get', ids.bnpl!, '--json')) as {status: string}).status
    while ((await status()) === 'pending') {
      if (Date.now() > deadline) throw new Error(`the first instalment of ${ids.bnpl} was not collected`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const other = await id(
      'users',
      'create',
      '--email',
      'save@example.test',
      '--first-name',
      'S',
      '--last-name',
      'V',
    )
    const destination = await id('wallets', 'create', '--user', other, '--currency', 'USD')
    await id(
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
    await id(
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
  }, TIMEOUT)
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('sandbox: a refused token is renewed from the profile, as the full CLI does', {
    timeout: TIMEOUT,
  }, async () => {
    const temp = tempConfigDir()
    try {
      cpSync(sandbox.configDir, temp.dir, {recursive: true})
      spoilToken(temp.dir)
      const cases = reads.flatMap(([command, id]) =>
        [['--json'], ['--debug']].map((flags) => [...command, id(), ...flags]),
      )
      await Promise.all(
        cases.map(async (args) => {
          const {fast} = await same(args, temp.dir)
          expect(fast.exitCode, fast.stderr).toBe(0)
          expect(fast.full).toBe(true)
        }),
      )
    } finally {
      temp.cleanup()
    }
  })

  it('hands over what it does not understand, before sending anything', {timeout: TIMEOUT}, async () => {
    const cases = [
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
    ]
    await Promise.all(
      cases.map(async (args) => {
        const {fast} = await same(args, sandbox.configDir)
        expect(fast.full, args.join(' ')).toBe(true)
      }),
    )
  })

  it('hands a user named by email to the full CLI, which finds their id', {timeout: TIMEOUT}, async () => {
    await Promise.all(
      [
        ['users', 'get', 'FAST@example.test', '--json'],
        ['users', 'balance', 'fast@example.test'],
        ['roundups', 'settings', 'get', 'fast@example.test'],
      ].map(async (args) => {
        const {fast} = await same(args, sandbox.configDir)
        expect(fast.full, args.join(' ')).toBe(true)
        expect(fast.exitCode, fast.stderr).toBe(0)
      }),
    )
    const {fast} = await same(['users', 'get', 'fast@example.test', '--json'], sandbox.configDir)
    expect(JSON.parse(fast.stdout)).toMatchObject({id: ids.user})
  })

  it('roundups pending takes its own flags on the fast path', {timeout: TIMEOUT}, async () => {
    await Promise.all([
      ...[
        ['--output', 'csv'],
        ['-o', 'yaml'],
        ['--columns=id,merchant', '--output', 'csv'],
        ['--fields', 'id', '--wide'],
      ].map(async (flags) => {
        const {fast} = await same(['roundups', 'pending', ids.user!, ...flags], sandbox.configDir)
        expect(fast.full, flags.join(' ')).toBe(false)
      }),
      // A column the list does not have: refused by the printer, and said by the full CLI.
      (async () => {
        const {fast} = await same(['roundups', 'pending', ids.user!, '--columns=nope'], sandbox.configDir)
        expect([fast.exitCode, fast.full]).toEqual([2, true])
      })(),
    ])
  })

  // Each command's JSON forms as processes of bin/run.js (what the trace proves is a process's);
  // the card, and under --debug the request and answer lines too, in this process.
  equalityCases(
    'sandbox',
    ONE_CALL,
    [
      ['record', ['--json'], 'process'],
      ['record', [], 'in-process'],
      ['record', ['--debug'], 'in-process'],
      ['nobody', ['--json'], 'process'],
      ['nobody', [], 'in-process'],
      ['nobody', ['--debug'], 'in-process'],
    ],
    async () => ({configDir: sandbox.configDir, reads}),
  )
})

/**
 * Log in to a reference service as `sandbox` (the fast path leaves environments with a banner to
 * the full CLI) in `configDir`, and make a user with a wallet there: the records a test reads.
 */
async function account(
  service: ReferenceService,
  configDir: string,
): Promise<{user: string; wallet: string}> {
  const c = service.credentials
  const cli = cliFor(configDir)
  const id = async (...args: string[]) => {
    const r = await cli(...args)
    expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    return r.stdout.trim()
  }
  // The secret as an argument, not on stdin: stdin would need a process of its own.
  const secret = ['--api-secret', c.apiSecret]
  await id(
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
    ...secret,
  )
  const user = await id(
    'users',
    'create',
    '--email',
    'r@example.test',
    '--first-name',
    'R',
    '--last-name',
    'F',
  )
  return {user, wallet: await id('wallets', 'create', '--user', user, '--currency', 'USD')}
}

describe.concurrent.each<ResponseShape>(['envelope', 'direct'])(
  'the fast path against the reference service, %s shape',
  (shape) => {
    /**
     * A reference service of the test's own (they are cheap: served here), logged in to from a
     * config dir of its own, so that every request it gets is of the test's runs.
     */
    const own = async () => {
      const service = await startReferenceService({shape})
      const temp = tempConfigDir()
      const close = async () => {
        temp.cleanup()
        await service.close()
      }
      try {
        return {service, close, dir: temp.dir, ...(await account(service, temp.dir))}
      } catch (err) {
        await close()
        throw err
      }
    }

    equalityCases(
      shape,
      ONE_CALL,
      [
        ['record', ['--json'], 'process'],
        ['record', [], 'in-process'],
        ['nobody', ['--json'], 'in-process'],
        ['nobody', [], 'in-process'],
      ],
      async () => {
        const {service, close, dir, user, wallet} = await own()
        const reads: Reads = [
          [['users', 'get'], () => user],
          [['users', 'balance'], () => user],
          [['wallets', 'get'], () => wallet],
          [['wallets', 'balance'], () => wallet],
          [['transactions', 'get'], () => 'txn_ref'],
          [['events', 'get'], () => 'evt_ref'],
          [['bnpl', 'payments', 'get'], () => 'bnpl_ref_1'],
          [['roundups', 'settings', 'get'], () => user],
          [['roundups', 'pending'], () => user],
        ]
        const answers = {record: ['users get', 'wallets get'], refuses: ['wallets get']}
        return {configDir: dir, reads, answers, own: {service, close}}
      },
    )

    it(`${shape}: a refused token is renewed once, with the same requests either way`, {
      timeout: TIMEOUT,
    }, async () => {
      const {service, close, dir, user, wallet} = await own()
      try {
        spoilToken(dir)
        for (const args of [
          ['wallets', 'get', wallet],
          ['wallets', 'get', 'wal_nobody'],
          ['users', 'get', user],
        ]) {
          // The refusal, the renewal and the request again: three requests, whichever path.
          const {fast} = await same(args, dir, {service, requests: 3})
          expect(fast.exitCode === 0, fast.stderr).toBe(args[2] !== 'wal_nobody')
          expect(fast.full).toBe(true)
        }
      } finally {
        await close()
      }
    })
  },
)
