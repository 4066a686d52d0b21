import {createHash} from 'node:crypto'
import {existsSync, globSync, writeFileSync} from 'node:fs'
import {basename, join, resolve} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {yesFlag} from '../cli/flags.js'
import {collectGarbage, favourSmallHeap} from '../cli/heap.js'
import {isCI} from '../cli/terminal.js'
import {
  credentialFingerprint,
  type PayctlClient,
  privateSubdir,
  stringifyExact,
  TokenBucket,
  usageError,
} from '../core/index.js'
import {
  type Fixture,
  Journal,
  loadFixtures,
  plan,
  type SeedProgress,
  type SeedResult,
  seed,
} from '../core/seed/index.js'

// The spec's Limits table, requests a minute.
const RATE_BY_KIND = {local: 100, sandbox: 100, production: 1000}

export default class Seed extends BaseCommand<typeof Seed> {
  static override summary = 'create the users, wallets, transactions and more that a fixture file declares'
  static override description =
    `A fixture is YAML or JSON. Records refer to each other by the fixture's names (\${wallets.alice_usd.id}), "count: N" makes N records with {{i}} (0…N-1) and {{n}} (1…N) in their fields, and \${env.NAME} or \${env.NAME:-default} reads the environment. See docs/seed.md.
Independent records are created concurrently, paced to the environment's rate limit. Safe to rerun: each record has an idempotency key derived from the fixture and its name, and a journal remembers what exists, so a run that was killed finishes the job with no duplicates; a run that failed says what to change, and the fixed fixture's run creates the rest.
Several files (or a quoted glob) are checked first, then seeded one after another; their ids are printed as one document, so their record names must differ. Progress goes to stderr, under --json too: a bar in a terminal, a line every few seconds elsewhere.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/fixtures/shop.yaml',
    '<%= config.bin %> <%= command.id %> fixture.yaml --json | jq -r .wallets.alice_usd.id',
    '<%= config.bin %> <%= command.id %> examples/fixtures/*.yaml --json > ids.json',
    '<%= config.bin %> <%= command.id %> bulk.yaml --concurrency 32 --rate off --output ids.json',
    '<%= config.bin %> <%= command.id %> fixture.yaml --dry-run',
  ]
  static override args = {
    file: Args.string({
      description: 'fixture file (.yaml, .yml or .json); several, or a quoted glob, are seeded in turn',
      required: true,
    }),
  }
  static override strict = false
  static override flags = {
    concurrency: Flags.integer({
      char: 'c',
      summary: 'requests under way at once',
      default: 8,
      min: 1,
      max: 256,
    }),
    rate: Flags.string({
      summary:
        'requests a minute, or "off" (default: the environment\'s limit; a local sandbox says its own)',
    }),
    'dry-run': Flags.boolean({summary: 'print the plan and create nothing'}),
    output: Flags.string({summary: 'also write the created ids, by fixture name, to this JSON file'}),
    journal: Flags.string({
      summary: 'journal file (default: one per fixture and profile in the config dir; one fixture only)',
    }),
    fresh: Flags.boolean({summary: 'ignore the journal of earlier runs (for a sandbox that was reset)'}),
    yes: yesFlag,
  }

  async run(): Promise<SeedResult | ReturnType<typeof plan>> {
    const f = this.flags
    const paths = fixturePaths(this.positional.length > 0 ? this.positional : [this.args.file])
    if (f.journal && paths.length > 1)
      throw usageError(
        '--journal names the journal of one fixture; give one file, or leave --journal out',
        'INVALID_FLAG',
        {
          flag: '--journal',
        },
      )
    favourSmallHeap()
    // Every file is read and checked before anything is sent, and every problem found is reported.
    const fixtures = await loadFixtures(paths, this.env)
    if (fixtures.length > 1) refuseSharedNames(paths, fixtures)
    const total = fixtures.reduce((n, x) => n + x.records.length, 0)
    if (f['dry-run']) return this.printPlan(fixtures, total)
    await this.confirmProduction(`create ${total} records`, f.yes)
    const perMinute = await this.ratePerMinute(f.rate)
    const limiter = perMinute === undefined ? undefined : new TokenBucket(perMinute)
    const client = this.newClient({
      ...this.transportOptions,
      onRetry: (info) => {
        if (info.reason === 'HTTP 429') limiter?.pause(info.delayMs)
        this.transportOptions.onRetry?.(info)
      },
    })

    // A local sandbox started afresh (a new :memory: one on the same port, say) holds none of the
    // records an earlier sandbox's journal lists: each start of it has journals of its own. A
    // restarted file-backed sandbox answers the records again for their idempotency keys.
    const instance =
      this.profile.kind === 'local'
        ? ((await this.api.call('sandboxHealth').catch(() => undefined))?.startedAt ?? '')
        : ''
    collectGarbage()
    // Ctrl-C stops at once; the journal already lists every record made, so say how to go on.
    this.interruptNote = {
      text: this.resumeNote(),
      audit: `interrupted while seeding ${paths.map((p) => basename(p)).join(', ')}; a rerun resumes`,
    }
    const started = performance.now()
    const {result, made, skipped} = await this.seedEach(paths, fixtures, {client, limiter, instance})
    this.interruptNote = undefined
    if (f.output) writeFileSync(f.output, `${stringifyExact(result, 2)}\n`)
    const seconds = (performance.now() - started) / 1000
    const skippedNote = skipped ? ` (${skipped} already existed)` : ''
    const files = paths.length > 1 ? ` from ${paths.length} files` : ''
    this.out.log(
      `✓ ${made} records created${files} in ${seconds.toFixed(1)} s${skippedNote}${f.output ? `; ids in ${f.output}` : ''}`,
    )
    return result
  }

  /** Seed the fixtures one after another, each with its journal and progress; their ids as one result. */
  async seedEach(
    paths: string[],
    fixtures: Fixture[],
    how: {client: PayctlClient; limiter: TokenBucket | undefined; instance: string},
  ): Promise<{result: SeedResult; made: number; skipped: number}> {
    const f = this.flags
    const result: SeedResult = {}
    let made = 0
    let skipped = 0
    for (const [i, fixture] of fixtures.entries()) {
      const path = paths[i]!
      const journal = new Journal(f.journal ?? this.journalPath(path, how.instance))
      if (f.fresh) journal.clear()
      const progress = this.progressReporter(paths.length > 1 ? basename(path) : undefined)
      let last: SeedProgress | undefined
      const one = await seed(how.client, fixture, {
        concurrency: f.concurrency,
        limiter: how.limiter,
        journal,
        onProgress: (p) => {
          last = p
          progress.update(p)
        },
      })
        .catch((err: unknown) => {
          // Which file, when there are several.
          if (paths.length > 1 && err instanceof Error) err.message = `${basename(path)}: ${err.message}`
          throw err
        })
        .finally(() => progress.stop())
      for (const [kind, names] of Object.entries(one)) result[kind] = {...result[kind], ...names}
      made += (last?.done ?? 0) - (last?.skipped ?? 0)
      skipped += last?.skipped ?? 0
    }
    return {result, made, skipped}
  }

  /** The waves --dry-run would send, as a table; nothing is sent. */
  async printPlan(fixtures: Fixture[], total: number): Promise<ReturnType<typeof plan>> {
    const steps = fixtures.flatMap((fixture) => plan(fixture))
    await this.out.table(steps, [
      {header: 'WAVE', get: (s) => String(s.wave + 1)},
      {header: 'KIND', get: (s) => s.kind},
      {header: 'COUNT', get: (s) => String(s.names.length)},
      {
        header: 'RECORDS',
        get: (s) =>
          s.names.length > 4 ? `${s.names.slice(0, 3).join(', ')}, … ${s.names.at(-1)}` : s.names.join(', '),
      },
    ])
    const waves = fixtures.reduce((n, x) => n + new Set(plan(x).map((s) => s.wave)).size, 0)
    this.out.log(`${total} records in ${waves} waves; nothing sent.`)
    return steps
  }

  /**
   * What to run to finish an interrupted run: the command that finds the same journals, which are
   * kept per fixture file (as resolved from this directory), profile, service and sandbox start. The
   * files as given, the flags that choose the journal or shape the result, and never --fresh, which
   * would forget what was made.
   */
  resumeNote(): string {
    const f = this.flags
    const words = [this.config.bin, 'seed', ...this.positional]
    const source = this.profile.sources.profile
    if (source === 'flag' || source === 'env') words.push('--profile', this.profile.name)
    if (f.journal !== undefined) words.push('--journal', f.journal)
    if (f.concurrency !== Seed.flags.concurrency.default) words.push('--concurrency', String(f.concurrency))
    if (f.rate !== undefined) words.push('--rate', f.rate)
    if (f.output !== undefined) words.push('--output', f.output)
    if (f.jq !== undefined) words.push('--jq', f.jq)
    else if (this.jsonEnabled()) words.push('--json')
    if (f.yes) words.push('--yes')
    const again = `The records created so far are kept; to resume where this run stopped, run:\n  ${words.map(shellWord).join(' ')}`
    return this.profile.kind === 'local'
      ? `${again}\nTo start over instead: ${this.config.bin} sandbox reset, then the same command with --fresh.`
      : again
  }

  /**
   * The default journal of a fixture file: one per file, profile, service, sandbox `instance` and
   * credentials (partners side by side on one sandbox, or CI jobs with only `PAYCTL_*` variables,
   * share a profile name but never a journal).
   */
  journalPath(fixturePath: string, instance: string): string {
    const {auth, baseUrl, name} = this.profile
    const who = auth === undefined ? '' : credentialFingerprint(auth, baseUrl)
    const id = createHash('sha256')
      .update(`${fixturePath}|${name}|${baseUrl}|${instance}|${who}`)
      .digest('hex')
      .slice(0, 24)
    return join(privateSubdir(this.runtime.configDir, 'seed'), `${id}.ndjson`)
  }

  /** Requests a minute to pace to, or undefined for no pacing. */
  async ratePerMinute(flag: string | undefined): Promise<number | undefined> {
    if (flag === 'off') return undefined
    if (flag !== undefined) {
      const n = Number(flag)
      if (!Number.isInteger(n) || n < 1)
        throw usageError(`--rate wants requests a minute or "off", got "${flag}"`, 'INVALID_FLAG')
      return n
    }
    if (this.profile.kind === 'local') {
      const health = await this.api.call('sandboxHealth').catch(() => undefined)
      if (health?.rateLimit === 'off') return undefined
    }
    return RATE_BY_KIND[this.profile.kind]
  }

  /**
   * Progress on stderr, under --json too (stdout carries only the result): a bar redrawn in place
   * in a terminal; elsewhere (CI logs) a plain line every few seconds, and the last one.
   */
  progressReporter(label: string | undefined): {update: (p: SeedProgress) => void; stop: () => void} {
    const stream = this.io.err
    const live = stream.columns !== undefined && !isCI(this.env)
    const what = label ? `Seeding ${label}` : 'Seeding'
    const figures = (p: SeedProgress) =>
      `${p.done}/${p.total}  ${p.ratePerSecond.toFixed(0)}/s  ETA ${p.etaSeconds === undefined ? '?' : `${Math.ceil(p.etaSeconds)}s`}`
    const bar = (p: SeedProgress) => {
      const text = figures(p)
      const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - what.length - text.length - 6))
      const filled = Math.round((p.done / Math.max(p.total, 1)) * width)
      return `${what} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`
    }
    let lastPrinted = 0
    return {
      update: (p) => {
        const now = performance.now()
        if (live) {
          if (now - lastPrinted > 100 || p.done === p.total) stream.write(`\r\x1b[2K${bar(p)}`)
          else return
        } else if (lastPrinted === 0 || now - lastPrinted > 3_000 || p.done === p.total)
          stream.write(`${what} ${figures(p)}\n`)
        else return
        lastPrinted = now
      },
      stop: () => {
        if (live && lastPrinted > 0) stream.write('\n')
      },
    }
  }
}

/** A word as a POSIX shell reads it back: as it is when it can be, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** The fixture files named: each argument, or the files a quoted glob matches, in order. */
function fixturePaths(args: string[]): string[] {
  const paths: string[] = []
  for (const arg of args) {
    if (/[*?[]/.test(arg) && !existsSync(arg)) {
      const matches = globSync(arg).sort()
      if (matches.length === 0)
        throw usageError(`no fixture file matches ${arg}`, 'MISSING_FILE', {file: arg})
      paths.push(...matches.map((m) => resolve(m)))
    } else paths.push(resolve(arg))
  }
  return [...new Set(paths)]
}

/** Several fixtures print their ids in one document: a name may be used by one of them only. */
function refuseSharedNames(paths: string[], fixtures: Fixture[]): void {
  const owner = new Map<string, string>()
  for (const [i, fixture] of fixtures.entries()) {
    for (const r of fixture.records) {
      const name = `${r.kind}.${r.name.replace(/\[\d+\]$/, '')}`
      const other = owner.get(name)
      if (other !== undefined && other !== paths[i]) {
        throw usageError(
          `${name} is named in both ${basename(other)} and ${basename(paths[i]!)}; names must differ between fixtures seeded together, since their ids are printed in one document`,
          'INVALID_FIXTURE',
        )
      }
      owner.set(name, paths[i]!)
    }
  }
}
