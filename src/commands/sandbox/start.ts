import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {parseDuration} from '../../cli/duration.js'
import {
  claimConfigDir,
  clearState,
  defaultDataFile,
  isAlive,
  logPath,
  readState,
  type SandboxStarted,
  sandboxRunning,
  snapshotKey,
  startDetached,
  writeState,
} from '../../cli/local-sandbox/sandbox-process.js'
import {snapshotSource, snapshotStartFailure} from '../../cli/local-sandbox/snapshot-flags.js'
import {paint} from '../../cli/rendering/terminal.js'
import type {IOStreams, OutputStream} from '../../cli/runtime/io.js'
import {parseSize} from '../../cli/size.js'
import {INSPECTOR_PATH} from '../../contract/inspector.js'
import {isLoopbackHost, PayctlError, probeSandbox, saveLocalProfile, usageError} from '../../core/index.js'

/** Snapshot files a partner may keep, whatever their size (docs/sandbox.md#quotas). */
const SNAPSHOT_FILES = 100

/** Where `sandbox start` also takes its secrets from, and how it hands them to a --detach copy. */
const SECRET_ENV = {apiSecret: 'PAYCTL_SANDBOX_API_SECRET', secretKey: 'PAYCTL_SANDBOX_SECRET_KEY'} as const
const SECRET_FLAGS = ['--api-secret', '--secret-key']

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  static override summary = 'run the local sandbox, a stateful emulation of the service'
  static override handlesInterrupt = true
  static override description =
    `Serves the whole service under http://HOST:PORT/v1, stores data in an embedded database (a file that survives restarts, or :memory:), and writes a "local" profile with the sandbox's partner credentials so every other command works at once.
Runs in the foreground until Ctrl-C, logging each request to stderr; --detach runs it in the background (stop it with payctl sandbox stop).
--api-secret and --secret-key also come from PAYCTL_SANDBOX_API_SECRET and PAYCTL_SANDBOX_SECRET_KEY, or from stdin with - (one line each, in that order when both are -), so they need not appear in the process list; the background copy of --detach gets them through its environment, never its arguments.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --port 4010 --data :memory: --rate-limit off --detach',
    '<%= config.bin %> <%= command.id %> --token-ttl 30s --response-shape direct --settle-after 2s',
    'printf "%s\\n" "$SECRET_KEY" | <%= config.bin %> <%= command.id %> --secret-key - --detach',
  ]
  static override flags = {
    port: Flags.integer({
      summary: 'port to listen on (0 picks a free one)',
      default: 4010,
      min: 0,
      max: 65535,
    }),
    host: Flags.string({summary: 'address to bind (loopback unless you mean it)', default: '127.0.0.1'}),
    data: Flags.string({summary: 'database file, or :memory: (default: sandbox.db in the config dir)'}),
    detach: Flags.boolean({summary: 'run in the background and return once it is ready'}),
    'api-key': Flags.string({summary: 'fix the partner API key (default: reuse or generate)'}),
    'api-secret': Flags.string({
      summary: 'fix the partner API secret; - reads it from stdin',
      env: SECRET_ENV.apiSecret,
    }),
    'partner-id': Flags.string({summary: 'fix the partner id'}),
    'secret-key': Flags.string({
      summary: 'fix the Variant B secret key (must start with test_); - reads it from stdin',
      env: SECRET_ENV.secretKey,
    }),
    'response-shape': Flags.option({options: ['envelope', 'direct'] as const, default: 'envelope'})({
      summary: 'success bodies wrapped in {success, data, meta} (envelope) or bare (direct)',
    }),
    'token-ttl': Flags.string({summary: 'lifetime of access tokens, e.g. 30s, 15m, 7d', default: '7d'}),
    'rate-limit': Flags.option({options: ['spec', 'off'] as const, default: 'spec'})({
      summary:
        "enforce the spec's rate limits (100/min, 10,000/day) or none (off: for a CI job's own sandbox)",
    }),
    'settle-after': Flags.string({
      summary: 'how long "1-3 days" takes locally: when ACH, wire and crypto payments settle',
      default: '5s',
    }),
    'webhook-retries': Flags.option({options: ['realtime', 'fast'] as const, default: 'realtime'})({
      summary: 'retry failed webhook deliveries as in production (5 s … 10 h) or fast (0.5 s … 1 min)',
    }),
    'from-snapshot': Flags.string({
      summary: "start from a snapshot: a name among the operator's snapshots, or a snapshot file",
      helpValue: 'NAME|PATH',
    }),
    'snapshot-quota': Flags.string({
      summary: 'how much each partner may keep in snapshot files, e.g. 2GiB (at most 100 files)',
      default: '512MiB',
      helpValue: 'SIZE',
    }),
    ui: Flags.boolean({
      summary: 'serve the browser inspector at /_sandbox/ui (--no-ui: none)',
      default: true,
      allowNo: true,
    }),
    quiet: Flags.boolean({char: 'q', summary: 'do not log requests to stderr'}),
    'show-secrets': Flags.boolean({
      summary:
        'print the test credentials when detached or piped too, and under --json (they then land in logs)',
    }),
  }

  async run(): Promise<SandboxStarted | undefined> {
    const f = this.flags
    const tokenTtlSeconds = parseDuration(f['token-ttl'], 'token-ttl')
    const settleAfterSeconds = parseDuration(f['settle-after'], 'settle-after')
    const snapshotBytes = parseSize(f['snapshot-quota'], 'snapshot-quota')
    const dir = this.runtime.configDir
    const running = readState(dir)
    if (running && isAlive(running.pid) && (await probeSandbox(running.url, 1_000)))
      throw sandboxRunning(running)
    mkdirSync(dir, {recursive: true, mode: 0o700})
    const err = this.io.err
    if (!isLoopbackHost(f.host)) {
      // Said before detaching (the background copy's stderr goes to a log file) and under --json
      // too: this is about who can reach the credentials, not progress chatter.
      err.write(
        `${paint('yellow', `warning: binding to ${f.host} exposes the sandbox and its test credentials beyond this machine`, err)}\n`,
      )
    }
    // Read here too (not only by oclif's parser, from the process's environment): the command's
    // environment is the one given to its run.
    const secrets = readSecrets(
      f['api-secret'] ?? this.env[SECRET_ENV.apiSecret],
      f['secret-key'] ?? this.env[SECRET_ENV.secretKey],
      this.io,
    )
    const data = f.data ?? defaultDataFile(dir)
    if (f.detach) return this.detach(secrets)
    await this.serve({tokenTtlSeconds, settleAfterSeconds, snapshotBytes, data, secrets})
    return undefined
  }

  /** Serve in this process until Ctrl-C (or SIGTERM), then stop cleanly. */
  async serve(o: {
    tokenTtlSeconds: number
    settleAfterSeconds: number
    snapshotBytes: number
    data: string
    secrets: {apiSecret?: string | undefined; secretKey?: string | undefined}
  }): Promise<void> {
    const f = this.flags
    const {data, secrets} = o
    const err = this.io.err
    const dir = this.runtime.configDir
    const from = f['from-snapshot'] === undefined ? undefined : snapshotSource(f['from-snapshot'])
    const release = await claimConfigDir(dir)
    const {startSandbox} = await import('../../sandbox/index.js')
    const sandbox = await startSandbox({
      // Beside the data file, or in the config dir for :memory: (docs/sandbox.md#snapshots).
      ...(data === ':memory:' ? {snapshotDir: join(dir, 'snapshots')} : {}),
      ...(from === undefined ? {} : {fromSnapshot: from}),
      snapshotKey: snapshotKey(dir),
      snapshotQuota: {files: SNAPSHOT_FILES, bytes: o.snapshotBytes},
      port: f.port,
      host: f.host,
      data,
      responseShape: f['response-shape'],
      tokenTtlSeconds: o.tokenTtlSeconds,
      webhookRetries: f['webhook-retries'],
      settleAfterSeconds: o.settleAfterSeconds,
      rateLimit: f['rate-limit'],
      ui: f.ui,
      credentials: {
        ...(f['api-key'] ? {apiKey: f['api-key']} : {}),
        ...(secrets.apiSecret ? {apiSecret: secrets.apiSecret} : {}),
        ...(f['partner-id'] ? {partnerId: f['partner-id']} : {}),
        ...(secrets.secretKey ? {secretKey: secrets.secretKey} : {}),
      },
      log: f.quiet ? undefined : (line) => err.write(`${paint('dim', line, err)}\n`),
    }).catch(async (err: unknown) => {
      await release()
      throw startFailure(err, f.port, f.host, f['from-snapshot'])
    })
    const started = await this.register(sandbox, f.profile ?? 'local', data, f.ui)
    // A file grown past the size limit (ulimit -f) fails its write (EFBIG: a snapshot is refused,
    // and nothing is left of it) rather than ending the sandbox: the signal that comes with it has a
    // listener, so the exit hook does not send it again.
    this.runtime.onSignal('SIGXFSZ', () => undefined)
    if (this.jsonEnabled()) this.logJson(forOutput(started, f['show-secrets']))
    else this.printReady(started, f['response-shape'], f['rate-limit'], false)

    // `on`, not `once`: the listeners must outlive the first signal. conf's exit hook sends the
    // signal it caught to the process again, and with no listener left, Node would take that one
    // as a kill in the middle of closing (answers unsent, the data file not checkpointed).
    await new Promise<void>((resolve) => {
      this.runtime.onSignal('SIGINT', () => resolve())
      this.runtime.onSignal('SIGTERM', () => resolve())
    })
    err.write('Stopping sandbox…\n')
    await sandbox.close()
    clearState(dir)
    await release()
  }

  /** Save the local profile and the state file of a sandbox now listening, so other commands find it. */
  async register(
    sandbox: {url: string; host: string; port: number; credentials: SandboxStarted['credentials']},
    profile: string,
    data: string,
    ui: boolean,
  ): Promise<SandboxStarted> {
    const {credentials: c} = sandbox
    await saveLocalProfile(this.store, profile, sandbox.url, {
      variant: 'A',
      apiKey: c.apiKey,
      apiSecret: c.apiSecret,
      partnerId: c.partnerId,
    })
    const startedAt = new Date(this.runtime.clock.now()).toISOString()
    const inspector = ui ? `${sandbox.url}${INSPECTOR_PATH}` : null
    writeState(this.runtime.configDir, {
      pid: process.pid,
      url: sandbox.url,
      host: sandbox.host,
      port: sandbox.port,
      data,
      startedAt,
      credentials: {apiKey: c.apiKey, apiSecret: c.apiSecret, partnerId: c.partnerId},
      profile,
      inspector,
    })
    return {url: sandbox.url, inspector, pid: process.pid, profile, data, credentials: c}
  }

  /**
   * A person at a terminal gets the banner with the test credentials on stdout. Detached or piped
   * (a CI log), stdout gets the result alone, the URL, and the banner goes to stderr without the
   * credentials unless --show-secrets: they are in the profile already, and logs are kept.
   */
  printReady(s: SandboxStarted, shape: string, rateLimit: string, detached: boolean): void {
    const forPerson = this.io.out.isTTY && !detached
    const stream = forPerson ? this.io.out : this.io.err
    const lines = readyLines(s, {
      shape,
      rateLimit,
      detached,
      withSecrets: forPerson || this.flags['show-secrets'],
      stream,
      logFile: logPath(this.runtime.configDir),
    })
    if (forPerson) {
      for (const line of lines) this.out.log(line)
      return
    }
    this.io.out.write(`${s.url}\n`)
    this.io.err.write(`${lines.join('\n')}\n`)
  }

  /** Start a copy of this command in the background and return once it reports ready. */
  async detach(secrets: {
    apiSecret?: string | undefined
    secretKey?: string | undefined
  }): Promise<SandboxStarted> {
    // Anyone on the machine can read a process's arguments (ps, /proc/PID/cmdline) for its whole
    // life; its environment only its owner can.
    const env: NodeJS.ProcessEnv = {...this.env}
    delete env[SECRET_ENV.apiSecret]
    delete env[SECRET_ENV.secretKey]
    if (secrets.apiSecret) env[SECRET_ENV.apiSecret] = secrets.apiSecret
    if (secrets.secretKey) env[SECRET_ENV.secretKey] = secrets.secretKey
    const args = withoutSecrets(this.argv.filter((a) => a !== '--detach'))
    const started = await startDetached(this.runtime.configDir, args, env)
    if (!this.jsonEnabled()) {
      this.printReady(started, this.flags['response-shape'], this.flags['rate-limit'], true)
    }
    return forOutput(started, this.flags['show-secrets'])
  }
}

/**
 * The --json document of a started sandbox: its API secret and secret key written `[REDACTED]`, as
 * payctl writes every secret it does not show, unless --show-secrets. They are in the profile, and
 * a JSON document on stdout lands in logs as readily as the banner.
 */
function forOutput(s: SandboxStarted, showSecrets: boolean): SandboxStarted {
  if (showSecrets) return s
  return {...s, credentials: {...s.credentials, apiSecret: '[REDACTED]', secretKey: '[REDACTED]'}}
}

/** What `sandbox start` says once it listens; the credentials only when `withSecrets`. */
function readyLines(
  s: SandboxStarted,
  o: {
    shape: string
    rateLimit: string
    detached: boolean
    withSecrets: boolean
    stream: OutputStream
    logFile: string
  },
): string[] {
  const {shape, rateLimit, detached, withSecrets} = o
  const c = s.credentials
  const lines = [
    `${paint('green', '●', o.stream)} payctl sandbox listening on ${paint('bold', s.url, o.stream)}`,
    `  ${shape} responses · rate limit ${rateLimit} · data ${s.data}`,
    // Absent from the JSON of an older payctl's detached child: said only where known.
    ...(s.inspector
      ? [`  inspector ${paint('bold', s.inspector, o.stream)} (sign in with the API key and secret)`]
      : []),
    '',
  ]
  if (withSecrets) {
    lines.push(
      '  Test credentials (local sandbox only):',
      `    partner id   ${c.partnerId}`,
      `    api key      ${c.apiKey}`,
      `    api secret   ${c.apiSecret}`,
      `    secret key   ${c.secretKey}   (Variant B: payctl auth login --env local --secret-key …)`,
      '',
    )
  }
  lines.push(
    `  Profile "${s.profile}" is ready${withSecrets ? '' : ' (its credentials are in the profile file)'}. In another terminal:`,
    '    payctl users create --email ada@example.test --first-name Ada --last-name Lovelace',
    '',
    detached
      ? `  Running in the background (pid ${s.pid}); logs in ${o.logFile}. Stop it with: payctl sandbox stop`
      : '  Press Ctrl-C to stop.',
  )
  return lines
}

/** Why the sandbox did not start: it refuses bad settings (a malformed key, a port in use) with a plain Error. */
function startFailure(err: unknown, port: number, host: string, from?: string): PayctlError {
  if (err instanceof PayctlError) return err
  const code = (err as {code?: unknown}).code
  if (
    from !== undefined &&
    (code === 'NOT_FOUND' || code === 'SNAPSHOT_INVALID' || code === 'SNAPSHOT_CONFLICT')
  ) {
    return snapshotStartFailure(err as Error & {code: string}, from)
  }
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return new PayctlError({
      kind: 'usage',
      code: 'PORT_IN_USE',
      message: `port ${port} on ${host} is in use`,
      details: {flag: '--port'},
      suggestions: [`Try: payctl sandbox start --port 0 (any free port), or --port ${port + 1}`],
      cause: err,
    })
  }
  return new PayctlError({
    kind: 'usage',
    code:
      (err as NodeJS.ErrnoException).code === 'DATA_FILE_DAMAGED'
        ? 'DATA_FILE_DAMAGED'
        : 'SANDBOX_START_FAILED',
    message: (err as Error).message,
    cause: err,
  })
}

/** The arguments with every secret flag and its value left out, in each spelling oclif accepts. */
function withoutSecrets(argv: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (SECRET_FLAGS.includes(arg)) i++
    else if (!SECRET_FLAGS.some((flag) => arg.startsWith(`${flag}=`))) out.push(arg)
  }
  return out
}

/** The secrets given as flags or variables, with - read from stdin (a line each, api secret first). */
function readSecrets(
  apiSecret: string | undefined,
  secretKey: string | undefined,
  io: IOStreams,
): {apiSecret?: string | undefined; secretKey?: string | undefined} {
  if (apiSecret !== '-' && secretKey !== '-') return {apiSecret, secretKey}
  let lines: string[]
  try {
    lines = io.in.readAll().toString('utf8').split(/\r?\n/)
  } catch (err) {
    throw usageError(`cannot read the secret from stdin: ${(err as Error).message}`, 'INVALID_FLAG')
  }
  const next = (flag: string): string => {
    const line = lines.shift()?.trim()
    if (!line)
      throw usageError(`--${flag} - found no line on stdin to read`, 'MISSING_FLAG', {flag: `--${flag}`})
    return line
  }
  return {
    apiSecret: apiSecret === '-' ? next('api-secret') : apiSecret,
    secretKey: secretKey === '-' ? next('secret-key') : secretKey,
  }
}
