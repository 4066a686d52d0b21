import {createHash} from 'node:crypto'
import {writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {yesFlag} from '../cli/flags.js'
import {collectGarbage, favourSmallHeap} from '../cli/heap.js'
import {isCI} from '../cli/terminal.js'
import {configDir, stringifyExact, TokenBucket, usageError} from '../core/index.js'
import {Journal, loadFixture, plan, type SeedProgress, type SeedResult, seed} from '../core/seed/index.js'

// The spec's Limits table, requests a minute.
const RATE_BY_KIND = {local: 100, sandbox: 100, production: 1000}

export default class Seed extends BaseCommand<typeof Seed> {
  static override summary = 'create the users, wallets, transactions and more that a fixture file declares'
  static override description =
    `A fixture is YAML or JSON. Records refer to each other by the fixture's names (\${wallets.alice_usd.id}), "count: N" makes N records with {{i}} (0…N-1) and {{n}} (1…N) in their fields, and \${env.NAME} or \${env.NAME:-default} reads the environment. See docs/seed.md.
Independent records are created concurrently, paced to the environment's rate limit. Safe to rerun: each record has an idempotency key derived from the fixture and its name, and a journal remembers what exists, so a run that was killed finishes the job with no duplicates.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/fixtures/shop.yaml',
    '<%= config.bin %> <%= command.id %> fixture.yaml --json | jq -r .wallets.alice_usd.id',
    '<%= config.bin %> <%= command.id %> bulk.yaml --concurrency 32 --rate off --output ids.json',
    '<%= config.bin %> <%= command.id %> fixture.yaml --dry-run',
  ]
  static override args = {
    file: Args.string({description: 'fixture file (.yaml, .yml or .json)', required: true}),
  }
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
    journal: Flags.string({summary: 'journal file (default: one per fixture and profile in the config dir)'}),
    fresh: Flags.boolean({summary: 'ignore the journal of earlier runs (for a sandbox that was reset)'}),
    yes: yesFlag,
  }

  async run(): Promise<SeedResult | ReturnType<typeof plan>> {
    const f = this.flags
    const path = resolve(this.args.file)
    favourSmallHeap()
    const fixture = await loadFixture(path)
    if (f['dry-run']) {
      const steps = plan(fixture)
      this.table(steps, [
        {header: 'WAVE', get: (s) => String(s.wave + 1)},
        {header: 'KIND', get: (s) => s.kind},
        {header: 'COUNT', get: (s) => String(s.names.length)},
        {
          header: 'RECORDS',
          get: (s) =>
            s.names.length > 4
              ? `${s.names.slice(0, 3).join(', ')}, … ${s.names.at(-1)}`
              : s.names.join(', '),
        },
      ])
      this.log(
        `${fixture.records.length} records in ${new Set(steps.map((s) => s.wave)).size} waves; nothing sent.`,
      )
      return steps
    }
    await this.confirmProduction(`create ${fixture.records.length} records`, f.yes)
    const perMinute = await this.ratePerMinute(f.rate)
    const limiter = perMinute === undefined ? undefined : new TokenBucket(perMinute)
    const client = this.newClient({
      ...this.transportOptions,
      onRetry: (info) => {
        if (info.reason === 'HTTP 429') limiter?.pause(info.delayMs)
        this.transportOptions.onRetry?.(info)
      },
    })
    const journalPath =
      f.journal ??
      join(
        configDir(),
        'seed',
        `${createHash('sha256').update(`${path}|${this.profile.name}|${this.profile.baseUrl}`).digest('hex').slice(0, 24)}.ndjson`,
      )
    const journal = new Journal(journalPath)
    if (f.fresh) journal.clear()

    collectGarbage()
    const started = performance.now()
    const progress = this.progressReporter()
    let last: SeedProgress | undefined
    const result = await seed(client, fixture, {
      concurrency: f.concurrency,
      limiter,
      journal,
      onProgress: (p) => {
        last = p
        progress.update(p)
      },
    }).finally(() => progress.stop())
    if (f.output) writeFileSync(f.output, `${stringifyExact(result, 2)}\n`)
    const seconds = (performance.now() - started) / 1000
    const made = (last?.done ?? 0) - (last?.skipped ?? 0)
    const skippedNote = last?.skipped ? ` (${last.skipped} already existed)` : ''
    this.log(
      `✓ ${made} records created in ${seconds.toFixed(1)} s${skippedNote}${f.output ? `; ids in ${f.output}` : ''}`,
    )
    return result
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
      const health = await this.api.sandbox.health().catch(() => undefined)
      if (health?.rateLimit === 'off') return undefined
    }
    return RATE_BY_KIND[this.profile.kind]
  }

  /** A live line in a terminal; a plain line every few seconds elsewhere (CI logs). */
  progressReporter(): {update: (p: SeedProgress) => void; stop: () => void} {
    if (this.jsonEnabled()) return {update: () => {}, stop: () => {}}
    const live = process.stderr.isTTY && !isCI()
    const line = (p: SeedProgress) =>
      `Seeding ${p.done}/${p.total}  ${p.ratePerSecond.toFixed(0)}/s  ETA ${p.etaSeconds === undefined ? '?' : `${Math.ceil(p.etaSeconds)}s`}`
    let lastPrinted = 0
    return {
      update: (p) => {
        const now = performance.now()
        if (live) {
          if (now - lastPrinted > 100 || p.done === p.total) process.stderr.write(`\r\x1b[2K${line(p)}`)
        } else if (now - lastPrinted > 2_000 || p.done === p.total) process.stderr.write(`${line(p)}\n`)
        else return
        lastPrinted = now
      },
      stop: () => {
        if (live && lastPrinted > 0) process.stderr.write('\n')
      },
    }
  }
}
