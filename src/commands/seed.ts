import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {yesFlag} from '../cli/flags.js'
import {collectGarbage, favourSmallHeap} from '../cli/runtime/heap.js'
import {
  interruptNote,
  printPlan,
  secretNotes,
  seededLine,
  seedProgress,
  seedRateFlag,
} from '../cli/seed-output.js'
import type {LoadedStory} from '../contract/index.js'
import {isStoryFixture, loadStory, readStoryFixture, TokenBucket, usageError} from '../core/index.js'
import {
  fixturePaths,
  journalPath,
  loadFixtures,
  type plan,
  refuseSharedNames,
  type SeedResult,
  sandboxInstance,
  seedFiles,
  seedRate,
  writeSeedIds,
} from '../core/seed/index.js'

export default class Seed extends BaseCommand<typeof Seed> {
  static override summary = 'create the users, wallets, transactions and more that a fixture file declares'
  static override description =
    `A fixture is YAML or JSON. Records refer to each other by the fixture's names (\${wallets.alice_usd.id}), "count: N" makes N records with {{i}} (0…N-1) and {{n}} (1…N) in their fields, and \${env.NAME} or \${env.NAME:-default} reads the environment. See docs/seed.md.
Independent records are created concurrently, paced to the environment's rate limit. Safe to rerun: each record has an idempotency key derived from the fixture and its name, and a journal remembers what exists, so a run that was killed finishes the job with no duplicates; a run that failed says what to change, and the fixed fixture's run creates the rest.
Several files (or a quoted glob) are checked first, then seeded one after another; their ids are printed as one document, so their record names must differ. Progress goes to stderr, under --json too: a bar in a terminal, a line every few seconds elsewhere.
A story fixture (written by payctl sandbox import --file: it has a clock, and records with their history) is loaded whole into a local sandbox in one go, under new ids.
A webhook registration's signing secret is given once, by the run that registers it: in its --json output and --output file (webhooks.NAME.secret), and nowhere else.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/fixtures/shop.yaml',
    '<%= config.bin %> <%= command.id %> fixture.yaml --json | jq -r .wallets.alice_usd.id',
    '<%= config.bin %> <%= command.id %> examples/fixtures/webhooks.json --output ids.json && jq -r .webhooks.local_app.secret ids.json',
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
    output: Flags.string({
      summary:
        "also write the created ids, by fixture name, to this JSON file (with the webhook registrations' signing secrets: then only you can read it)",
    }),
    journal: Flags.string({
      summary: 'journal file (default: one per fixture and profile in the config dir; one fixture only)',
    }),
    fresh: Flags.boolean({summary: 'ignore the journal of earlier runs (for a sandbox that was reset)'}),
    yes: yesFlag,
  }

  async run(): Promise<SeedResult | ReturnType<typeof plan> | LoadedStory> {
    const f = this.flags
    const paths = fixturePaths(this.positional.length > 0 ? this.positional : [this.args.file])
    if (paths.length === 1 && (await isStoryFixture(paths[0]!))) return this.#loadStory(paths[0]!)
    if (f.journal && paths.length > 1)
      throw usageError(
        '--journal names the journal of one fixture; give one file, or leave --journal out',
        'INVALID_FLAG',
        {flag: '--journal'},
      )
    favourSmallHeap()
    // Every file is read and checked before anything is sent, and every problem found is reported.
    const fixtures = await loadFixtures(paths, this.env)
    if (fixtures.length > 1) refuseSharedNames(paths, fixtures)
    const total = fixtures.reduce((n, x) => n + x.records.length, 0)
    if (f['dry-run']) return printPlan(this.out, fixtures, total)
    await this.confirmProduction(`create ${total} records`, f.yes)
    const rate = seedRateFlag(f.rate)
    const perMinute = await seedRate(this.api, this.profile.kind, rate)
    const limiter = perMinute === undefined ? undefined : new TokenBucket(perMinute)
    const client = this.newClient({
      ...this.transportOptions,
      onRetry: (info) => {
        if (info.reason === 'HTTP 429') limiter?.pause(info.delayMs)
        this.transportOptions.onRetry?.(info)
      },
    })
    const instance = await sandboxInstance(this.api, this.profile.kind)
    collectGarbage()
    // Ctrl-C stops at once; the journal already lists every record made, so say how to go on.
    this.interruptNote = interruptNote(
      {
        bin: this.config.bin,
        files: this.positional,
        profile: this.profile,
        journal: f.journal,
        concurrency: f.concurrency === Seed.flags.concurrency.default ? undefined : f.concurrency,
        rate: f.rate,
        output: f.output,
        json: this.jsonEnabled(),
        jq: f.jq,
        yes: f.yes,
      },
      paths,
    )
    const started = performance.now()
    const {result, made, skipped} = await seedFiles(client, paths, fixtures, {
      concurrency: f.concurrency,
      limiter,
      journal: (path) => f.journal ?? journalPath(this.runtime.configDir, path, this.profile, instance),
      fresh: f.fresh,
      progress: seedProgress(this.io.err, this.env, paths),
    })
    this.interruptNote = undefined
    if (f.output) writeSeedIds(f.output, result)
    const seconds = (performance.now() - started) / 1000
    this.out.log(seededLine({made, skipped, files: paths.length, seconds, output: f.output}))
    for (const note of secretNotes(result, f.output)) this.out.warn(note)
    return result
  }

  /** A story fixture: history the API cannot make again, so a local sandbox loads it whole. */
  async #loadStory(path: string): Promise<LoadedStory> {
    const story = await readStoryFixture(path)
    this.requireLocal('seeding a story fixture')
    const loaded = await this.out.spin(`Loading the story in ${path}`, () => loadStory(this.api, story))
    const user = loaded.ids['users.customer'] ?? Object.values(loaded.ids)[0] ?? ''
    this.out.done(`Loaded the story in ${path} (${Object.keys(loaded.ids).length} records)`, user)
    return loaded
  }
}
