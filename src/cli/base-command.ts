import {Command, type Interfaces} from '@oclif/core'
import {
  AuditLog,
  Connections,
  PayctlClient,
  PayctlError,
  ProfileStore,
  type ResolvedProfile,
  redactArgv,
  redactText,
  redactValue,
  resolveProfile,
  stringifyExact,
  type TransportOptions,
} from '../core/index.js'
import {renderError, toPayctlError} from './errors.js'
import type {Row} from './fields.js'
import {fitColumns} from './fit.js'
import {globalFlags} from './flags.js'
import {type ListSpec, type OutputFormat, type Page, reportedInOutput, streamList} from './list-output.js'
import {type Column, renderCard, renderTable} from './output.js'
import {addSuggestions} from './suggestions.js'
import {canPrompt, paint, terminalSafe} from './terminal.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>
export interface ListFlagValues {
  limit?: number | undefined
  all?: boolean | undefined
  cursor?: string | undefined
  output?: OutputFormat | undefined
  columns?: string | undefined
  wide?: boolean | undefined
}
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/**
 * Every payctl command: parses, calls the core, renders. Gives lazy access to the profile file,
 * the resolved profile and an API client, and owns error output and exit codes.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true
  static override baseFlags = globalFlags
  /** Commands that stop gracefully on Ctrl-C themselves set this; the rest exit 130 at once. */
  static handlesInterrupt = false

  /**
   * What Ctrl-C should leave behind besides "Interrupted.": a line for the user (what already
   * happened and how to follow it) and a note for the audit log. Set while work that cannot be
   * taken back is in flight.
   */
  protected interruptNote: {text: string; audit: string} | undefined

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>
  #store: ProfileStore | undefined
  #profile: ResolvedProfile | undefined
  #api: PayctlClient | undefined
  /** Every API client this command made, for the audit log. */
  readonly #clients: PayctlClient[] = []
  /** The connections this command's requests use, closed when it ends. */
  readonly #connections = new Connections()
  #onInterrupt: (() => void) | undefined

  protected override async init(): Promise<void> {
    await super.init()
    if (!(this.ctor as typeof BaseCommand).handlesInterrupt) {
      this.#onInterrupt = () => {
        const note = this.interruptNote
        process.stderr.write(`\nInterrupted.${note === undefined ? '' : ` ${note.text}`}\n`)
        // What was sent before Ctrl-C happened at the service: the audit log keeps it.
        this.#audit(
          new PayctlError({kind: 'interrupted', code: 'INTERRUPTED', message: 'interrupted'}),
          note?.audit,
        )
        process.exit(130)
      }
      process.once('SIGINT', this.#onInterrupt)
    }
    const {flags, args, argv} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (this.ctor as typeof BaseCommand).baseFlags,
      args: this.ctor.args,
      strict: this.ctor.strict,
      enableJsonFlag: this.ctor.enableJsonFlag,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
    this.positional = argv.map(String)
  }

  /**
   * Whether --json was given, as the parser read it once it has: a flag whose value is `--`
   * (`--first-name --`) must not hide a --json after it, as oclif's own scan of the arguments would.
   */
  override jsonEnabled(): boolean {
    const parsed = (this.flags as {json?: unknown} | undefined)?.json
    return parsed === undefined ? super.jsonEnabled() : parsed === true
  }

  /** Every argument given, in order (more than `args` declares for a command that is not strict). */
  protected positional: string[] = []

  protected get store(): ProfileStore {
    this.#store ??= new ProfileStore()
    return this.#store
  }

  /** The profile this command acts on (flags, then env vars, then the profile file). */
  protected get profile(): ResolvedProfile {
    if (!this.#profile) {
      this.#profile = resolveProfile(this.store.read(), {profile: this.flags.profile})
      this.banner(this.#profile.environment, this.#profile.name, this.#profile.baseUrl)
    }
    return this.#profile
  }

  /** One line on stderr naming any environment other than local and sandbox, before acting on it. */
  protected banner(environment: string, profile: string, baseUrl: string): void {
    if (environment === 'local' || environment === 'sandbox') return
    const tag = paint(['bgRed', 'white', 'bold'], ` ${environment.toUpperCase()} `, process.stderr)
    process.stderr.write(`${tag} profile ${profile} → ${baseUrl}\n`)
  }

  /** The API client for the profile, created on first use. */
  protected get api(): PayctlClient {
    this.#api ??= this.newClient(this.transportOptions)
    return this.#api
  }

  /** An API client for the profile with options of its own (the mutations it sends are audited). */
  protected newClient(transport: TransportOptions): PayctlClient {
    const client = new PayctlClient({profile: this.profile, store: this.store, ...transport})
    this.#clients.push(client)
    return client
  }

  /**
   * How requests go: over this command's connections, reporting themselves as `--debug` lines and
   * retry notices, both on stderr.
   */
  protected get transportOptions(): TransportOptions {
    return {
      connections: this.#connections,
      debug: this.flags.debug
        ? (line) => process.stderr.write(`${paint('dim', line, process.stderr)}\n`)
        : undefined,
      onRetry: ({delayMs, reason}) =>
        this.warnLine(`${reason}: retrying in ${(delayMs / 1000).toFixed(1)} s`),
    }
  }

  protected get interactive(): boolean {
    return canPrompt(this.flags['no-input']) && !this.jsonEnabled()
  }

  /** A line on stderr, hidden under --json. */
  protected warnLine(text: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`${paint('yellow', text, process.stderr)}\n`)
  }

  /**
   * Human output on stdout (silent under --json). Values from the service reach the terminal only
   * through here, the card, table, CSV and YAML writers, and the error renderer: each escapes
   * control characters with terminalSafe, so none of them can drive the terminal.
   */
  public override log(message = '', ...args: unknown[]): void {
    super.log(
      terminalSafe(message, {lines: true}),
      ...args.map((a) => (typeof a === 'string' ? terminalSafe(a) : a)),
    )
  }

  /**
   * Run `work` with a spinner on stderr when a person is watching; plain otherwise. A terminal that
   * reports no width (a bare pseudo-terminal) gets none: the spinner would redraw without end.
   */
  protected async spin<R>(text: string, work: () => Promise<R>): Promise<R> {
    if (this.jsonEnabled() || !process.stderr.isTTY || !process.stderr.columns || this.flags.debug)
      return work()
    const {default: ora} = await import('ora')
    const spinner = ora({
      text,
      stream: process.stderr,
      discardStdin: false,
      color: process.stderr.hasColors() ? 'cyan' : false, // false under NO_COLOR
    }).start()
    try {
      const result = await work()
      spinner.stop()
      return result
    } catch (err) {
      spinner.stop()
      throw err
    }
  }

  /** Print a record as a key/value card (not under --json). */
  protected card(rows: Row[]): void {
    this.log(renderCard(rows))
  }

  /**
   * Confirm a mutation: in a terminal a tick line and the record's card; piped, just the id, so
   * `ID=$(payctl wallets create …)` works (not under --json, where the record is the output). An
   * answer with no id (the service need not send one where the interface shows none) is printed
   * piped as one line of JSON instead: never nothing.
   */
  protected created(what: string, id: unknown, rows: Row[], answer?: unknown): void {
    if (this.jsonEnabled()) return
    const shownId = typeof id === 'string' && id !== '' ? id : undefined
    if (!process.stdout.isTTY) {
      this.log(shownId ?? stringifyExact(answer ?? {}))
      return
    }
    this.log(`${paint('green', '✓')} ${what}${shownId ? ` ${paint('bold', shownId)}` : ''}`)
    this.log(renderCard(rows))
  }

  /**
   * Print a list in the format the user chose, streaming page by page; under --json the output is
   * the page shape with every item fetched.
   */
  protected async list<T, P extends Page>(spec: ListSpec<T, P>, flags: ListFlagValues): Promise<void> {
    const format = this.jsonEnabled() ? 'json' : (flags.output ?? 'table')
    const describeError = (err: unknown) => redactValue(this.#decorate(err).toJSON().error)
    const {count, nextCursor} = await streamList(
      spec,
      {...flags, format, describeError, width: this.tableWidth(flags.wide), onHidden: this.#hiddenNote},
      (text) => process.stdout.write(text),
    )
    if (format !== 'table') return
    if (count === 0) this.log(`No ${spec.key.replace(/([A-Z])/g, ' $1').toLowerCase()}.`)
    if (nextCursor) this.warnLine(`More ${spec.key}: --cursor ${nextCursor}, or --all for everything`)
  }

  /**
   * Print a list held whole (not paged) in the --output format; `whole` is what --json and
   * `--output json` print. Returns false for a table, which the command prints its own way.
   */
  protected async printList<T>(
    whole: unknown,
    key: string,
    items: T[],
    columns: Column<T>[],
    flags: {output?: OutputFormat | undefined; columns?: string | undefined},
  ): Promise<boolean> {
    if (this.jsonEnabled()) return true
    const format = flags.output ?? 'table'
    if (format === 'table' && flags.columns === undefined) return false
    if (format === 'json') {
      this.logJson(whole)
      return true
    }
    const page = {hasMore: false, nextCursor: null}
    await streamList(
      {key, columns, fetch: async () => page, items: () => items},
      {format, columns: flags.columns},
      (t) => process.stdout.write(t),
    )
    return true
  }

  /** Print rows as a table (not under --json), fitted to a terminal's width unless --wide. */
  protected table<R>(rows: R[], columns: Column<R>[]): void {
    const width = this.tableWidth((this.flags as {wide?: boolean}).wide)
    if (width === undefined || rows.length === 0) {
      this.log(renderTable(rows, columns))
      return
    }
    const fit = fitColumns(columns, rows, width)
    this.log(renderTable(rows, fit.columns))
    if (fit.hidden.length > 0) this.#hiddenNote(fit.hidden)
  }

  /** The width to fit tables to: a terminal's, unless --wide; none when stdout is not a terminal. */
  protected tableWidth(wide: boolean | undefined): number | undefined {
    if (wide || !process.stdout.isTTY || !process.stdout.columns) return undefined
    return process.stdout.columns
  }

  readonly #hiddenNote = (headers: string[]) =>
    this.warnLine(`Hidden to fit the terminal: ${headers.join(', ')} (--wide shows all)`)

  /**
   * Where nobody can answer prompts, fail once naming every flag of `values` left out, rather than
   * one per run. (A single missing one is left to `ask`, which says the same.)
   */
  protected requireFlags(values: Record<string, unknown>): void {
    if (this.interactive) return
    const missing = Object.entries(values)
      .filter(([, v]) => v === undefined)
      .map(([k]) => `--${k}`)
    if (missing.length < 2) return
    throw new PayctlError({
      kind: 'usage',
      code: 'MISSING_FLAG',
      message: `missing required flags ${missing.join(', ')}`,
      details: {flags: missing},
      suggestions: [`Pass ${missing.join(', ')}, or run in a terminal to be prompted.`],
    })
  }

  /** Ask for a value, or fail naming the flag when nobody can answer. */
  protected async ask(
    flag: string,
    message: string,
    opts: {secret?: boolean; default?: string; validate?: (v: string) => true | string} = {},
  ): Promise<string> {
    if (!this.interactive) {
      throw new PayctlError({
        kind: 'usage',
        code: 'MISSING_FLAG',
        message: `missing required flag --${flag}`,
        details: {flag: `--${flag}`},
        suggestions: [`Pass --${flag}, or run in a terminal to be prompted.`],
      })
    }
    const prompts = await import('@inquirer/prompts')
    const validate = (v: string) =>
      v.trim() === '' ? `${message} is required` : (opts.validate?.(v) ?? true)
    if (opts.secret) return prompts.password({message, mask: '*', validate}, {output: process.stderr})
    return prompts.input({message, default: opts.default, validate}, {output: process.stderr})
  }

  /** Sandbox-only operations refuse any profile that is not the local sandbox. */
  protected requireLocal(what: string): void {
    if (this.profile.kind === 'local') return
    throw new PayctlError({
      kind: 'usage',
      code: 'NOT_LOCAL',
      message: `${what} only works against the local sandbox; profile "${this.profile.name}" is ${this.profile.environment} (${this.profile.baseUrl})`,
    })
  }

  /** Against production, a state change needs a yes: asked in a TTY, `--yes` otherwise. */
  protected async confirmProduction(action: string, yes: boolean): Promise<void> {
    if (yes || this.profile.kind !== 'production') return
    if (!this.interactive) {
      throw new PayctlError({
        kind: 'usage',
        code: 'CONFIRMATION_REQUIRED',
        message: `refusing to ${action} in production without confirmation`,
        suggestions: ['Pass --yes to confirm.'],
      })
    }
    await this.confirm(`${action} in ${this.profile.environment} (${this.profile.baseUrl})?`)
  }

  /** Ask a yes/no question (default no); "no" cancels the command with exit 2. */
  protected async confirm(message: string): Promise<void> {
    const {confirm} = await import('@inquirer/prompts')
    const ok = await confirm({message, default: false}, {output: process.stderr})
    if (!ok) throw new PayctlError({kind: 'usage', code: 'CANCELLED', message: 'cancelled'})
  }

  /** The --json output: exact integers (amounts beyond 2^53 are bigint), no colour codes in pipes. */
  protected override logJson(json: unknown): void {
    process.stdout.write(`${stringifyExact(json, 2)}\n`)
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<void> {
    // oclif's own exit signal (this.exit) passes through untouched.
    if (err.constructor?.name === 'ExitError') throw err
    const error = this.#decorate(err)
    // A listing that failed midway has already put the error in its JSON document on stdout.
    if (this.jsonEnabled()) {
      if (!reportedInOutput(err)) this.logJson(redactValue(error.toJSON()))
    } else process.stderr.write(`${redactText(renderError(error))}\n`)
    if (this.flags?.debug && error.cause instanceof Error && error.cause.stack) {
      process.stderr.write(`${redactText(error.cause.stack)}\n`)
    }
    this.exit(error.exitCode)
  }

  /** Anything thrown, as the one error type with the suggestions that fit the profile. */
  #decorate(err: unknown): PayctlError {
    const error = toPayctlError(err)
    let profile: ResolvedProfile | undefined
    try {
      profile = this.#profile ?? resolveProfile(this.store.read(), {profile: this.flags?.profile})
    } catch {
      profile = undefined
    }
    const ctor = this.ctor as typeof BaseCommand
    addSuggestions(error, profile, new Set(Object.keys({...ctor.baseFlags, ...ctor.flags})))
    return error
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    this.#audit(err)
    if (this.#onInterrupt !== undefined) process.off('SIGINT', this.#onInterrupt)
    await this.#connections.close()
    await super.finally(err)
  }

  /** Record a command that sent mutations to the service in the local audit log. */
  #audit(err: Error | undefined, note?: string): void {
    const requests = this.#clients.flatMap((c) => c.mutations.first).slice(0, 20)
    const requestCount = this.#clients.reduce((n, c) => n + c.mutations.sent, 0)
    if (requestCount === 0) return
    const failure = err ? toPayctlError(err) : undefined
    const profile = this.#profile
    try {
      const log = new AuditLog()
      const {replaced} = log.append({
        time: new Date().toISOString(),
        profile: profile?.name ?? '',
        environment: profile?.environment ?? '',
        baseUrl: profile?.baseUrl ?? '',
        command: `payctl ${this.id?.replaceAll(':', ' ') ?? ''} ${redactArgv(this.argv)}`.trim(),
        outcome: failure ? 'error' : 'ok',
        code: failure?.code,
        exitCode: failure?.exitCode ?? 0,
        requests,
        requestCount,
        ...(note === undefined ? {} : {note}),
      })
      if (replaced !== undefined)
        this.warnLine(`${log.path} was ${replaced}: a new audit log replaced it; what it led to is unchanged`)
    } catch (auditError) {
      this.warnLine(`could not write the audit log: ${(auditError as Error).message}`)
    }
  }
}
