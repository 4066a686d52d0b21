import {mkdirSync} from 'node:fs'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {parseDuration} from '../../cli/duration.js'
import {
  clearState,
  defaultDataPath,
  isAlive,
  logPath,
  readState,
  type SandboxStarted,
  startDetached,
  writeState,
} from '../../cli/sandbox-process.js'
import {isCI, paint} from '../../cli/terminal.js'
import {configDir, isLoopbackUrl, PayctlError, probeSandbox, saveLocalProfile} from '../../core/index.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  static override summary = 'run the local sandbox, a stateful emulation of the service'
  static override handlesInterrupt = true
  static override description =
    `Serves the whole service under http://HOST:PORT/v1, stores data in an embedded database (a file that survives restarts, or :memory:), and writes a "local" profile with the sandbox's partner credentials so every other command works at once.
Runs in the foreground until Ctrl-C, logging each request to stderr; --detach runs it in the background (stop it with payctl sandbox stop).`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --port 4010 --data :memory: --rate-limit off --detach',
    '<%= config.bin %> <%= command.id %> --token-ttl 30s --response-shape direct --settle-after 2s',
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
    'api-secret': Flags.string({summary: 'fix the partner API secret'}),
    'partner-id': Flags.string({summary: 'fix the partner id'}),
    'secret-key': Flags.string({summary: 'fix the Variant B secret key (must start with test_)'}),
    'response-shape': Flags.option({options: ['envelope', 'direct'] as const, default: 'envelope'})({
      summary: 'success bodies wrapped in {success, data, meta} (envelope) or bare (direct)',
    }),
    'token-ttl': Flags.string({summary: 'lifetime of access tokens, e.g. 30s, 15m, 7d', default: '7d'}),
    'rate-limit': Flags.option({options: ['spec', 'off'] as const})({
      summary:
        "enforce the spec's rate limits (100/min, 10,000/day) or none (default: spec; off when CI is set)",
    }),
    'settle-after': Flags.string({
      summary: 'how long "1-3 days" takes locally: when ACH, wire and crypto payments settle',
      default: '5s',
    }),
    'webhook-retries': Flags.option({options: ['realtime', 'fast'] as const, default: 'realtime'})({
      summary: 'retry failed webhook deliveries as in production (5 s … 10 h) or fast (0.5 s … 1 min)',
    }),
    quiet: Flags.boolean({char: 'q', summary: 'do not log requests to stderr'}),
  }

  async run(): Promise<SandboxStarted | undefined> {
    const f = this.flags
    const tokenTtlSeconds = parseDuration(f['token-ttl'], 'token-ttl')
    const settleAfterSeconds = parseDuration(f['settle-after'], 'settle-after')
    // A CI job's sandbox serves one job: emulating the service's 100 requests a minute would only
    // slow its seeding and tests down. `--rate-limit spec` still asks for it.
    const rateLimit = f['rate-limit'] ?? (isCI() ? 'off' : 'spec')
    const running = readState()
    if (running && isAlive(running.pid) && (await probeSandbox(running.url, 1_000))) {
      throw new PayctlError({
        kind: 'usage',
        code: 'SANDBOX_RUNNING',
        message: `a sandbox is already running at ${running.url} (pid ${running.pid})`,
        suggestions: ['Try: payctl sandbox stop'],
      })
    }
    mkdirSync(configDir(), {recursive: true, mode: 0o700})
    if (!isLoopbackUrl(`http://${f.host.includes(':') ? `[${f.host}]` : f.host}`)) {
      // Said before detaching (the background copy's stderr goes to a log file) and under --json
      // too: this is about who can reach the credentials, not progress chatter.
      process.stderr.write(
        `${paint('yellow', `warning: binding to ${f.host} exposes the sandbox and its test credentials beyond this machine`, process.stderr)}\n`,
      )
    }
    if (f.detach) return this.detach()

    const data = f.data ?? defaultDataPath()
    const {startSandbox} = await import('../../sandbox/index.js')
    const sandbox = await startSandbox({
      port: f.port,
      host: f.host,
      data,
      responseShape: f['response-shape'],
      tokenTtlSeconds,
      webhookRetries: f['webhook-retries'],
      settleAfterSeconds,
      rateLimit,
      credentials: {
        ...(f['api-key'] ? {apiKey: f['api-key']} : {}),
        ...(f['api-secret'] ? {apiSecret: f['api-secret']} : {}),
        ...(f['partner-id'] ? {partnerId: f['partner-id']} : {}),
        ...(f['secret-key'] ? {secretKey: f['secret-key']} : {}),
      },
      log: f.quiet ? undefined : (line) => process.stderr.write(`${paint('dim', line, process.stderr)}\n`),
    }).catch((err: unknown) => {
      // The sandbox refuses bad settings (a malformed key, a port in use) with a plain Error.
      if (err instanceof PayctlError) throw err
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new PayctlError({
          kind: 'usage',
          code: 'PORT_IN_USE',
          message: `port ${f.port} on ${f.host} is in use`,
          details: {flag: '--port'},
          suggestions: [`Try: payctl sandbox start --port 0 (any free port), or --port ${f.port + 1}`],
          cause: err,
        })
      }
      throw new PayctlError({
        kind: 'usage',
        code: 'SANDBOX_START_FAILED',
        message: (err as Error).message,
        cause: err,
      })
    })
    const profile = f.profile ?? 'local'
    const {credentials: c} = sandbox
    await saveLocalProfile(this.store, profile, sandbox.url, {
      variant: 'A',
      apiKey: c.apiKey,
      apiSecret: c.apiSecret,
      partnerId: c.partnerId,
    })
    const startedAt = new Date().toISOString()
    writeState({
      pid: process.pid,
      url: sandbox.url,
      host: sandbox.host,
      port: sandbox.port,
      data,
      startedAt,
      credentials: {apiKey: c.apiKey, apiSecret: c.apiSecret, partnerId: c.partnerId},
    })
    const started: SandboxStarted = {url: sandbox.url, pid: process.pid, profile, data, credentials: c}
    if (this.jsonEnabled()) this.logJson(started)
    else this.printReady(started, f['response-shape'], rateLimit, false)

    // `on`, not `once`: the listeners must outlive the first signal. conf's exit hook sends the
    // signal it caught to the process again, and with no listener left, Node would take that one
    // as a kill in the middle of closing (answers unsent, the data file not checkpointed).
    await new Promise<void>((resolve) => {
      process.on('SIGINT', () => resolve())
      process.on('SIGTERM', () => resolve())
    })
    process.stderr.write('Stopping sandbox…\n')
    await sandbox.close()
    clearState()
    return undefined
  }

  printReady(s: SandboxStarted, shape: string, rateLimit: string, detached: boolean): void {
    const c = s.credentials
    this.log(`${paint('green', '●')} payctl sandbox listening on ${paint('bold', s.url)}`)
    this.log(`  ${shape} responses · rate limit ${rateLimit} · data ${s.data}`)
    this.log('')
    this.log('  Test credentials (local sandbox only):')
    this.log(`    partner id   ${c.partnerId}`)
    this.log(`    api key      ${c.apiKey}`)
    this.log(`    api secret   ${c.apiSecret}`)
    this.log(`    secret key   ${c.secretKey}   (Variant B: payctl auth login --env local --secret-key …)`)
    this.log('')
    this.log(`  Profile "${s.profile}" is ready. In another terminal:`)
    this.log('    payctl users create --email ada@example.test --first-name Ada --last-name Lovelace')
    this.log('')
    if (detached)
      this.log(
        `  Running in the background (pid ${s.pid}); logs in ${logPath()}. Stop it with: payctl sandbox stop`,
      )
    else this.log('  Press Ctrl-C to stop.')
  }

  /** Start a copy of this command in the background and return once it reports ready. */
  async detach(): Promise<SandboxStarted> {
    const started = await startDetached(this.argv.filter((a) => a !== '--detach'))
    if (!this.jsonEnabled()) {
      const rateLimit = this.flags['rate-limit'] ?? (isCI() ? 'off' : 'spec')
      this.printReady(started, this.flags['response-shape'], rateLimit, true)
    }
    return started
  }
}
