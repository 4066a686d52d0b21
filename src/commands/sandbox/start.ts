import {BaseCommand} from '../../cli/base-command.js'
import {
  claimConfigDir,
  clearState,
  defaultDataFile,
  type SandboxStarted,
  startDetached,
} from '../../cli/local-sandbox/sandbox-process.js'
import {
  forOutput,
  printReady,
  refuseSecondSandbox,
  registerSandbox,
  sandboxOptions,
  startFailure,
  warnIfExposed,
} from '../../cli/local-sandbox/sandbox-start.js'
import {snapshotSource} from '../../cli/local-sandbox/snapshot-flags.js'
import {
  detachedCopy,
  type StartSecrets,
  type StartSettings,
  sandboxStartFlags,
  startSecrets,
  startSettings,
} from '../../cli/local-sandbox/start-flags.js'

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
  static override flags = sandboxStartFlags

  async run(): Promise<SandboxStarted | undefined> {
    const f = this.flags
    const settings = startSettings(f)
    const dir = this.runtime.configDir
    await refuseSecondSandbox(dir)
    warnIfExposed(f.host, this.io.err)
    const secrets = startSecrets(f, this.env, this.io)
    const data = f.data ?? defaultDataFile(dir)
    if (f.detach) return this.detach(secrets)
    await this.serve(settings, data, secrets)
    return undefined
  }

  /** Serve in this process until Ctrl-C (or SIGTERM), then stop cleanly. */
  async serve(settings: StartSettings, data: string, secrets: StartSecrets): Promise<void> {
    const f = this.flags
    const err = this.io.err
    const dir = this.runtime.configDir
    const from = f['from-snapshot'] === undefined ? undefined : snapshotSource(f['from-snapshot'])
    const release = await claimConfigDir(dir)
    const {startSandbox} = await import('../../sandbox/index.js')
    const options = sandboxOptions(f, {dir, data, from, settings, secrets, err})
    const sandbox = await startSandbox(options).catch(async (err: unknown) => {
      await release()
      throw startFailure(err, f.port, f.host, f['from-snapshot'])
    })
    const started = await registerSandbox(this.store, dir, sandbox, {
      profile: f.profile ?? 'local',
      data,
      ui: f.ui,
      now: this.runtime.clock.now(),
    })
    // A file grown past the size limit (ulimit -f) fails its write (EFBIG: a snapshot is refused,
    // and nothing is left of it) rather than ending the sandbox: the signal that comes with it has a
    // listener, so the exit hook does not send it again.
    this.runtime.onSignal('SIGXFSZ', () => undefined)
    if (this.jsonEnabled()) this.logJson(forOutput(started, f['show-secrets']))
    else this.printReady(started, false)

    // `on`, not `once`: the listeners must outlive the first signal. conf's exit hook sends the
    // signal it caught to the process again, and with no listener left, Node would take that one
    // as a kill in the middle of closing (answers unsent, the data file not checkpointed).
    await new Promise<void>((resolve) => {
      this.runtime.onSignal('SIGINT', () => resolve())
      this.runtime.onSignal('SIGTERM', () => resolve())
    })
    // The request lines so far before the command's own, and those of the last answers before the exit.
    options.log?.flush()
    err.write('Stopping sandbox…\n')
    await sandbox.close()
    options.log?.flush()
    clearState(dir)
    await release()
  }

  /** Start a copy of this command in the background and return once it reports ready. */
  async detach(secrets: StartSecrets): Promise<SandboxStarted> {
    const copy = detachedCopy(this.argv, this.env, secrets)
    const started = await startDetached(this.runtime.configDir, copy.args, copy.env)
    if (!this.jsonEnabled()) this.printReady(started, true)
    return forOutput(started, this.flags['show-secrets'])
  }

  printReady(started: SandboxStarted, detached: boolean): void {
    const f = this.flags
    printReady(this.out, started, {
      shape: f['response-shape'],
      rateLimit: f['rate-limit'],
      detached,
      showSecrets: f['show-secrets'],
      dir: this.runtime.configDir,
    })
  }
}
