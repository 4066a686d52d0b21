import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'
import {favourSmallHeap} from '../../cli/runtime/heap.js'
import {
  auditedUser,
  loadStory,
  PayctlClient,
  prepareStory,
  redactionKey,
  resolveProfile,
  sourceToSandbox,
  storyFixture,
  withFlagValue,
  writeFileAtomically,
  writeStoryMap,
} from '../../core/index.js'

interface ImportResult {
  from: {profile: string; environment: string}
  user: string
  counts: Record<string, number>
  missing: {what: string; reason: string}[]
  /** The new ids by the story's names, when it was loaded. */
  ids?: Record<string, string>
  file?: string
  map?: string
}

export default class SandboxImport extends BaseCommand<typeof SandboxImport> {
  static override summary = "bring a customer's story from any environment into the local sandbox, redacted"
  static override description =
    'Reads the user, their wallets, transactions of every status, ledger, events with their deliveries, BNPL plans and round-ups from the --from profile (reads only), redacts them and loads them into the local sandbox under new ids, with their times and balances. --map writes which source id became which sandbox id: that file links the sandbox to real customers, so it is written readable by you only; keep it out of version control.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --from production --user usr_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> --from staging --user ada@example.test --since 30d --keep-metadata order_id',
    '<%= config.bin %> <%= command.id %> --from production --user usr_0123456789abcdef01234567 --file ticket-4711.yaml --yes',
  ]
  static override flags = {
    from: Flags.string({summary: 'the profile to read the story from (any environment; reads only)'}),
    user: Flags.string({summary: 'the user: an id (usr_…), or the email of one user'}),
    since: Flags.string({summary: 'how far back: a duration (90d) or an instant', default: '90d'}),
    into: Flags.string({summary: 'the local sandbox profile to load into (default: the current profile)'}),
    file: Flags.string({
      summary: 'write the redacted story as a fixture for `payctl seed`, instead of loading it',
    }),
    'keep-metadata': Flags.string({
      summary: 'a metadata key whose values are kept as they are (repeatable)',
      multiple: true,
    }),
    map: Flags.string({
      summary: 'write {sourceId: sandboxId} to this file: it links the sandbox to real customers',
    }),
    yes: yesFlag,
  }

  /** The user as the audit log names them: the id read, else the id or redacted email given. */
  #auditUser: string | undefined

  protected override profileToActOn(): string | undefined {
    return this.flags?.into ?? this.flags?.profile
  }

  protected override auditArgv(): string[] {
    return this.#auditUser === undefined ? this.argv : withFlagValue(this.argv, '--user', this.#auditUser)
  }

  async run(): Promise<ImportResult> {
    const f = this.flags
    // Tens of thousands of records read, redacted and sent: a heap kept small (as seed keeps it).
    favourSmallHeap()
    this.questions.requireFlags({from: f.from, user: f.user})
    const from = f.from ?? (await this.questions.ask('from', 'Profile to read the story from'))
    const user = f.user ?? (await this.questions.ask('user', 'User (id or email)'))
    const source = resolveProfile(this.store.read(), {profile: from}, this.env)
    if (f.file === undefined) this.requireLocal('sandbox import (the story is loaded into --into)')
    const key = redactionKey(this.runtime.configDir)
    this.#auditUser = auditedUser(user, key)
    const audited = `${this.#auditUser}${this.#auditUser === user ? '' : ' (an email, redacted)'}`
    await this.confirmProduction("read a customer's story, to import it redacted,", f.yes, source)
    this.auditNote = `sandbox import of user ${audited} from ${source.environment} (profile ${source.name})`
    const client = new PayctlClient({profile: source, store: this.store, ...this.transportOptions})
    const ready = await this.out.spin(`Reading the story from ${source.name}`, () =>
      prepareStory(client, {
        user,
        since: f.since,
        sourceIsSandbox: source.kind === 'local',
        key,
        keepMetadata: f['keep-metadata'],
      }),
    )
    this.#auditUser = ready.sourceUserId
    this.auditNote = `sandbox import of user ${ready.sourceUserId} from ${source.environment} (profile ${source.name})`
    for (const m of ready.missing) this.out.warn(`Not imported: ${m.what}: ${m.reason}`)
    const result: ImportResult = {
      from: {profile: source.name, environment: source.environment},
      user: ready.sourceUserId,
      counts: ready.counts,
      missing: ready.missing,
    }
    if (f.file !== undefined) {
      writeFileAtomically(f.file, await storyFixture(ready, source.name), 0o644, '--file')
      this.out.done(`Wrote the redacted story to ${f.file} (load it with payctl seed ${f.file})`, f.file)
      return {...result, file: f.file}
    }
    const loaded = await this.out.spin('Loading it into the sandbox', () => loadStory(this.api, ready.story))
    if (f.map !== undefined) writeStoryMap(f.map, sourceToSandbox(ready.refs, loaded))
    const customer = loaded.ids['users.customer'] ?? ''
    this.out.done(
      `Imported ${ready.counts.transactions} transactions and ${ready.counts.events} events of ${ready.sourceUserId} as ${customer}${f.map === undefined ? '' : ` (map in ${f.map})`}`,
      customer,
    )
    return {...result, ids: loaded.ids, ...(f.map === undefined ? {} : {map: f.map})}
  }
}
