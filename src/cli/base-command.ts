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
  resolveUserId,
  type TransportOptions,
} from '../core/index.js'
import {renderError, toPayctlError} from './command-errors.js'
import {globalFlags} from './flags.js'
import {JqFilter} from './jq.js'
import {reportedInOutput} from './rendering/list-output.js'
import {Printer} from './rendering/printer.js'
import {canPrompt, paint} from './rendering/terminal.js'
import type {Env, IOStreams, OutputStream} from './runtime/io.js'
import {choosePager, missingProgram, type Pager, pagedOnFirstWrite, startPager} from './runtime/pager.js'
import {Questions} from './runtime/questions.js'
import {currentRuntime, type Runtime} from './runtime/runtime.js'
import {addSuggestions} from './suggestions.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>
export type {ListFlagValues} from './rendering/printer.js'

/**
 * Every payctl command: parses, calls the core, renders. The base keeps the lifecycle (parsing,
 * Ctrl-C, errors and exit codes, the audit log) and the dependencies: the runtime a command runs
 * in (its streams, environment, config dir, clock), the profile file, the resolved profile and the
 * API client. What a command prints goes through `out` (a Printer), what it asks through
 * `questions`.
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
  /**
   * A line the audit log keeps for this command even where it sent no mutation (an import that
   * only read a service and wrote a file): what it read, and where from; never the data.
   */
  protected auditNote: string | undefined
  /** The command line the audit log keeps (its secrets then redacted): a command may put data it was given out of it. */
  protected auditArgv(): string[] {
    return this.argv
  }

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>
  /** Every argument given, in order (more than `args` declares for a command that is not strict). */
  protected positional: string[] = []

  /** The world this command runs in: a process's own, or an in-process run's (runtime/runtime.ts). */
  protected readonly runtime: Runtime = currentRuntime()
  /** The runtime's streams, stdout through the pager once the command prints, if it pages (pagesOutput). */
  readonly #io: IOStreams = pagedOnFirstWrite(this.runtime.io, () => this.#startPager())
  protected readonly out: Printer = new Printer(this.#io, {
    json: () => this.jsonEnabled(),
    debug: () => this.flags?.debug === true,
    wide: () => (this.flags as {wide?: boolean} | undefined)?.wide === true,
    describeError: (err) => redactValue(this.#decorate(err).toJSON().error),
    hasFlag: (name) => name in {...(this.ctor as typeof BaseCommand).baseFlags, ...this.ctor.flags},
    jq: () => this.#jq,
  })
  protected readonly questions: Questions = new Questions(this.runtime.prompter, () => this.interactive)

  #store: ProfileStore | undefined
  #profile: ResolvedProfile | undefined
  #api: PayctlClient | undefined
  /** The --jq expression, compiled before the command runs. */
  #jq: JqFilter | undefined
  /** Every API client this command made, for the audit log. */
  readonly #clients: PayctlClient[] = []
  /** The connections this command's requests use, closed when it ends. */
  readonly #connections = new Connections(this.runtime.env)
  #offInterrupt: (() => void) | undefined
  /** The pager stdout goes through, once started. */
  #pager: Pager | undefined
  /** Whether Ctrl-C was pressed: payctl is ending. */
  #interrupting = false

  protected get io(): IOStreams {
    return this.#io
  }

  /**
   * Whether this run's output goes through the pager in a terminal, as git's and gh's long outputs
   * do (`users inspect`, `sandbox logs`): such a command takes --no-pager (pagerFlag).
   */
  protected pagesOutput(): boolean {
    return false
  }

  /**
   * The pager's input, when this run pages: a command that pages, stdout a terminal of this
   * process, no --no-pager, and a pager chosen (choosePager). A pager that is not installed is
   * named in one line on stderr, and the output printed as it is.
   */
  #startPager(): OutputStream | undefined {
    const {out, err} = this.runtime.io
    const off = (this.flags as {'no-pager'?: boolean} | undefined)?.['no-pager'] === true
    if (!this.pagesOutput() || off || !out.isTTY || out.fd === undefined) return undefined
    const choice = choosePager(this.env)
    if (choice === undefined) return undefined
    const missing = missingProgram(choice.command, this.env)
    if (missing !== undefined) {
      err.write(
        `${paint('yellow', `pager ${missing} not found: printing directly (PAYCTL_PAGER, PAGER or --no-pager choose)`, err)}\n`,
      )
      return undefined
    }
    // The user quit the pager before the end: nothing more can be shown, so stop quietly.
    const pager = startPager(choice, {...out, fd: out.fd}, err, () =>
      this.runtime.exit(this.runtime.exitCode ?? 0),
    )
    this.#pager = pager
    // Ctrl-C reaches the pager too; a command that handles it itself must still wait for the pager.
    if ((this.ctor as typeof BaseCommand).handlesInterrupt) this.runtime.onSignal('SIGINT', this.#onInterrupt)
    return pager.output
  }

  /**
   * Ctrl-C: the pager, if one runs, gets the end of its input and is waited for (the user reads
   * what came, as with git), then "Interrupted." and exit 130.
   */
  readonly #onInterrupt = (): void => {
    // Ctrl-C again while the pager is still open (the user's reflex in less) changes nothing: the
    // pager is left first, or the terminal is left to it.
    if (this.#interrupting) return
    this.#interrupting = true
    const pager = this.#pager
    if (pager === undefined) {
      this.#interrupted()
      return
    }
    this.#pager = undefined
    void pager.stop().then(() => this.#interrupted())
  }

  #interrupted(): void {
    const note = this.interruptNote
    this.io.err.write(`\nInterrupted.${note === undefined ? '' : ` ${note.text}`}\n`)
    // What was sent before Ctrl-C happened at the service: the audit log keeps it.
    this.#audit(
      new PayctlError({kind: 'interrupted', code: 'INTERRUPTED', message: 'interrupted'}),
      note?.audit,
    )
    this.runtime.exit(130)
  }

  /** End the pager's input and wait for the user to leave it: before an error, and at the end. */
  async #stopPager(): Promise<void> {
    const pager = this.#pager
    this.#pager = undefined
    await pager?.stop()
  }

  protected get env(): Env {
    return this.runtime.env
  }

  /** The connections this command's requests use (a listener's WebSocket too), closed when it ends. */
  protected get connections(): Connections {
    return this.#connections
  }

  protected override async init(): Promise<void> {
    await super.init()
    if (!(this.ctor as typeof BaseCommand).handlesInterrupt)
      this.#offInterrupt = this.runtime.onSignal('SIGINT', this.#onInterrupt)
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
    // Before the command sends anything: an expression that does not compile is a usage error.
    if (this.flags.jq !== undefined) this.#jq = await JqFilter.compile(this.flags.jq)
  }

  /**
   * Whether --json was given, as the parser read it once it has: a flag whose value is `--`
   * (`--first-name --`) must not hide a --json after it, as oclif's own scan of the arguments would.
   */
  override jsonEnabled(): boolean {
    if (this.#jqGiven()) return true
    const parsed = (this.flags as {json?: unknown} | undefined)?.json
    return parsed === undefined ? super.jsonEnabled() : parsed === true
  }

  /** Whether --jq was given (read from the arguments where parsing failed); it implies --json. */
  #jqGiven(): boolean {
    if (this.flags !== undefined) return this.flags.jq !== undefined
    const end = this.argv.indexOf('--')
    return this.argv.slice(0, end === -1 ? undefined : end).some((a) => a === '--jq' || a.startsWith('--jq='))
  }

  protected get store(): ProfileStore {
    this.#store ??= new ProfileStore(this.runtime.configDir)
    return this.#store
  }

  /** The profile this command acts on (flags, then env vars, then the profile file). */
  protected get profile(): ResolvedProfile {
    if (!this.#profile) {
      this.#profile = this.#resolveProfile()
      this.banner(this.#profile.environment, this.#profile.name, this.#profile.baseUrl)
    }
    return this.#profile
  }

  #resolveProfile(): ResolvedProfile {
    return resolveProfile(this.store.read(), {profile: this.profileToActOn()}, this.env)
  }

  /** The profile named for this command to act on; undefined: PAYCTL_PROFILE, then the current one. */
  protected profileToActOn(): string | undefined {
    return this.flags?.profile
  }

  /** One line on stderr naming any environment other than local and sandbox, before acting on it. */
  protected banner(environment: string, profile: string, baseUrl: string): void {
    if (environment === 'local' || environment === 'sandbox') return
    const tag = paint(['bgRed', 'white', 'bold'], ` ${environment.toUpperCase()} `, this.io.err)
    this.io.err.write(`${tag} profile ${profile} → ${baseUrl}\n`)
  }

  /** The API client for the profile, created on first use. */
  protected get api(): PayctlClient {
    this.#api ??= this.newClient(this.transportOptions)
    return this.#api
  }

  /** The id of the user a flag names, by id or by the email of one user (read commands take either). */
  protected async userIdOf(given: string | undefined): Promise<string | undefined> {
    return given === undefined ? undefined : resolveUserId(this.api, given)
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
      debug: this.flags.debug ? this.out.debugLine : undefined,
      prior: this.runtime.prior,
      wait: this.runtime.clock.wait,
      onRetry: ({delayMs, description}) =>
        this.out.warn(`${description}: retrying in ${(delayMs / 1000).toFixed(1)} s`),
    }
  }

  /** Whether someone can answer a prompt: a terminal, no --no-input, no CI, no --json. */
  protected get interactive(): boolean {
    return canPrompt(this.io, this.env, this.flags['no-input']) && !this.jsonEnabled()
  }

  /** Human output on stdout (silent under --json); oclif's own name for it, kept for its callers. */
  public override log(message = '', ...args: unknown[]): void {
    this.out.log(message, ...args)
  }

  /** The --json output; oclif calls it with the record a command returns. */
  protected override logJson(json: unknown): void {
    this.out.json(json)
  }

  /**
   * One item of a stream (`listen`, `logs --follow`) as --json prints it, one line. With --jq, an
   * item the expression fails on is told on stderr and the stream goes on, to exit 1 at its end (as
   * jq does with a stream of documents).
   */
  protected jsonLine(item: unknown): string {
    try {
      return this.out.jsonText(item, {oneLine: true})
    } catch (err) {
      if (!(err instanceof PayctlError) || err.code !== 'JQ_FAILED') throw err
      this.#printError(err)
      this.runtime.exitCode = err.exitCode
      return ''
    }
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
  protected async confirmProduction(
    action: string,
    yes: boolean,
    profile: ResolvedProfile = this.profile,
  ): Promise<void> {
    if (yes || profile.kind !== 'production') return
    if (!this.interactive) {
      throw new PayctlError({
        kind: 'usage',
        code: 'CONFIRMATION_REQUIRED',
        message: `refusing to ${action} in production without confirmation`,
        suggestions: ['Pass --yes to confirm.'],
      })
    }
    await this.questions.confirm(`${action} in ${profile.environment} (${profile.baseUrl})?`)
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<void> {
    // oclif's own exit signal (this.exit) passes through untouched.
    if (err.constructor?.name === 'ExitError') throw err
    const error = this.#decorate(err)
    // A listing that failed midway has already put the error in its JSON document on stdout. With
    // --jq, errors go to stderr as without --json: the expression is for what the command gives.
    if (this.jsonEnabled() && !this.#jqGiven()) {
      if (!reportedInOutput(err)) this.logJson(redactValue(error.toJSON()))
    } else {
      // On stderr, after what the pager shows: not drawn over it.
      await this.#stopPager()
      this.#printError(error)
    }
    this.exit(error.exitCode)
  }

  #printError(error: PayctlError): void {
    this.io.err.write(`${redactText(renderError(error, this.io.err))}\n`)
    if (this.flags?.debug && error.cause instanceof Error && error.cause.stack) {
      this.io.err.write(`${redactText(error.cause.stack)}\n`)
    }
  }

  /**
   * oclif prints the record a command returns (logJson) after the command has ended, past its
   * error handling: a --jq expression that fails on that record is told here, on stderr, exit 1.
   */
  protected override async _run<R>(): Promise<R> {
    try {
      return await super._run<R>()
    } catch (err) {
      if (!(err instanceof PayctlError) || err.code !== 'JQ_FAILED') throw err
      await this.#stopPager()
      this.#printError(err)
      this.runtime.exitCode = err.exitCode
      return undefined as R
    } finally {
      // After the --json record too, which oclif prints once the command has ended.
      await this.#stopPager()
    }
  }

  /** Anything thrown, as the one error type with the suggestions that fit the profile. */
  #decorate(err: unknown): PayctlError {
    const error = toPayctlError(err)
    let profile: ResolvedProfile | undefined
    try {
      profile = this.#profile ?? this.#resolveProfile()
    } catch {
      profile = undefined
    }
    const ctor = this.ctor as typeof BaseCommand
    const flags = new Set(Object.keys({...ctor.baseFlags, ...ctor.flags}))
    addSuggestions(error, profile, flags, this.runtime.configDir)
    return error
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    this.#audit(err)
    this.#offInterrupt?.()
    await this.#connections.close()
    await super.finally(err)
  }

  /** Record a command that sent mutations to the service in the local audit log. */
  #audit(err: Error | undefined, note?: string): void {
    const requests = this.#clients.flatMap((c) => c.mutations.first).slice(0, 20)
    const requestCount = this.#clients.reduce((n, c) => n + c.mutations.sent, 0)
    if (requestCount === 0 && this.auditNote === undefined) return
    note ??= this.auditNote
    const failure = err ? toPayctlError(err) : undefined
    const profile = this.#profile
    try {
      const log = new AuditLog(this.runtime.configDir)
      const {replaced} = log.append({
        time: new Date(this.runtime.clock.now()).toISOString(),
        profile: profile?.name ?? '',
        environment: profile?.environment ?? '',
        baseUrl: profile?.baseUrl ?? '',
        command: `payctl ${this.id?.replaceAll(':', ' ') ?? ''} ${redactArgv(this.auditArgv())}`.trim(),
        outcome: failure ? 'error' : 'ok',
        code: failure?.code,
        exitCode: failure?.exitCode ?? 0,
        requests,
        requestCount,
        ...(note === undefined ? {} : {note}),
      })
      if (replaced !== undefined)
        this.out.warn(`${log.path} was ${replaced}: a new audit log replaced it; what it led to is unchanged`)
    } catch (auditError) {
      this.out.warn(`could not write the audit log: ${(auditError as Error).message}`)
    }
  }
}
