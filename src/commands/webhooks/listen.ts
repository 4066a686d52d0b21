import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {deliveryFaultFlags, deliveryFaultsFrom} from '../../cli/local-sandbox/fault-flags.js'
import {terminalSafe} from '../../cli/rendering/terminal.js'
import type {OutputStream} from '../../cli/runtime/io.js'
import {listenLines} from '../../cli/views/webhooks-views.js'
import {ALL_EVENTS} from '../../contract/index.js'
import {PayctlError, privateSubdir, type TransportOptions, usageError} from '../../core/index.js'
import {type ListenEvent, Listener, ListenState, parseEventSelectors} from '../../core/webhooks/index.js'
import {type ForwardRoute, forwardTimingsFrom, parseHeaders, parseRoute} from '../../core/webhooks/routing.js'

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'receive events through a tunnel to the sandbox and forward them to your app'
  static override handlesInterrupt = true
  static override description =
    `Opens this profile's listen session and holds a link to it. Each event is printed, checked against the session's signing secret, and (with --forward-to) POSTed to your app with its exact body bytes and its x-service-signature header, so your app verifies it with the secret printed at start. The secret stays the same every time you listen with this profile.

Events made while listen is cut off or killed (for up to an hour) are replayed when it is back; each delivery reaches your app once. A dropped link is re-established with backoff. Ctrl-C finishes the forwards in hand, ends the session (nothing is collected while listen is stopped; the secret stays) and stops.

The delivery-fault flags (--duplicate, --reorder, --delay, --fail-first, --tamper-signature) apply to this session's deliveries while it listens, as \`webhooks faults add\` does for a registration; a tampered delivery is forwarded as it came and marked as tampered.

With --json, every line of stdout is one JSON object: {"type": "ready" | "event" | "forward" | "skipped" | "reconnecting" | "reconnected" | "duplicate", …}.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/hooks',
    '<%= config.bin %> <%= command.id %> --events wallet.created,transaction.completed --forward-to http://localhost:3000/hooks',
    'export WEBHOOK_SECRET=$(<%= config.bin %> <%= command.id %> --print-secret)',
    '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/hooks --json --exit-on-failure',
    '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/hooks --duplicate 0.2 --reorder 5 --tamper-signature 0.05',
    "<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/hooks --route 'bnplsvc.*=http://localhost:3001/bnpl' --route 'transaction.failed=http://localhost:3002/alerts' --header 'X-Env: dev'",
  ]
  static override flags = {
    'forward-to': Flags.string({
      summary:
        'POST each event to this URL (your app’s webhook endpoint; http:// unless it says otherwise); without it, events are only printed',
    }),
    events: Flags.string({summary: 'comma-separated event names, prefix.* or * (default: every event)'}),
    'print-secret': Flags.boolean({summary: 'print the session’s signing secret and exit'}),
    'exit-on-failure': Flags.boolean({
      summary: 'exit non-zero when the link fails instead of reconnecting (for supervisors)',
    }),
    // Delivery faults of this session (docs/webhooks.md#delivery-faults).
    ...deliveryFaultFlags,
    route: Flags.string({
      summary:
        'PATTERN=URL: forward the events PATTERN selects (bnplsvc.*, transaction.failed) to URL instead; the first route that matches wins, the rest go to --forward-to (repeatable)',
      multiple: true,
    }),
    header: Flags.string({summary: '"Name: value" added to every forward (repeatable)', multiple: true}),
  }

  /** The --route rules, tried in order before --forward-to (docs/webhooks.md#routed-forwarding). */
  #routes: ForwardRoute[] = []

  /** Under --json every line of stdout is one object, errors and --print-secret's answer included. */
  protected override logJson(json: unknown): void {
    this.out.json(json, {oneLine: true})
  }

  // The listener reconnects with its own backoff and says so: no per-request retries or notices.
  protected override get transportOptions(): TransportOptions {
    return {...super.transportOptions, retries: 0, onRetry: undefined}
  }

  // Long: the flags, the signals and the listener's whole life, read top to bottom.
  async run(): Promise<{secret: string; sessionId: string} | undefined> {
    const f = this.flags
    const events = f.events === undefined ? [ALL_EVENTS] : parseEventSelectors(f.events)
    // `localhost:3000/hooks` means http://localhost:3000/hooks, as a browser would take it.
    const given = f['forward-to']
    const forwardTo = given === undefined || /^[a-z][\w+.-]*:\/\//i.test(given) ? given : `http://${given}`
    if (forwardTo !== undefined && !/^https?:\/\/[^/]/i.test(forwardTo)) {
      throw usageError(`--forward-to must be an http(s) URL, e.g. http://localhost:3000/hooks`, 'INVALID_URL')
    }
    // How long a forward may take, and hold its target up: shortened by tests.
    const timings = forwardTimingsFrom(this.env)
    if (f['print-secret']) {
      // Without --events, the session keeps the selectors of the listener that may be running.
      const body = {
        listenerKey: ListenState.key(this.profile.name, this.#stateDir()),
        ...(f.events === undefined ? {} : {events}),
      }
      const session = await this.out.spin('Opening listen session', () =>
        this.api.call('openListenSession', {body}),
      )
      this.out.log(session.secret)
      return {secret: session.secret, sessionId: session.id}
    }
    const state = ListenState.open(this.profile.name, this.#stateDir())
    const controller = new AbortController()
    let stoppingSince = 0
    const stop = () => {
      // A second Ctrl-C does not wait for the forwards in hand. when-exit (used by conf) raises
      // every signal once more, at once: that echo, within half a second, is not a second Ctrl-C.
      if (controller.signal.aborted) {
        if (this.runtime.clock.now() - stoppingSince > 500) this.runtime.exit(130)
        return
      }
      stoppingSince = this.runtime.clock.now()
      if (!this.jsonEnabled()) this.io.err.write('\nStopping: finishing the forwards in hand…\n')
      controller.abort()
    }
    this.runtime.onSignal('SIGINT', stop)
    this.runtime.onSignal('SIGTERM', stop)
    const listener = new Listener({
      client: this.api,
      connections: this.connections,
      state,
      events,
      faults: deliveryFaultsFrom(f) ?? null,
      ...this.#routing(forwardTo),
      ...timings,
      exitOnFailure: f['exit-on-failure'],
      signal: controller.signal,
      onEvent: (e) => this.render(e),
    })
    try {
      await listener.run()
    } catch (err) {
      // Whoever read stdout is gone (`listen --json | head -n 1`): nothing more is acknowledged,
      // the session is closed, and that is a normal end.
      if (!(err instanceof PayctlError && err.code === 'OUTPUT_CLOSED')) throw err
      if (!this.jsonEnabled()) this.io.err.write('stdout was closed: stopped listening.\n')
      // At once: oclif's final flush of a closed stdout would wait for a drain that never comes.
      this.exit(0)
    }
    // The signal handlers stay until the process ends: when-exit (used by conf) raises the signal
    // once more as the process winds down, which would otherwise end it with the signal's default.
    return undefined
  }

  /** Where each event goes: --route rules, tried in order before --forward-to, and --header. */
  #routing(forwardTo: string | undefined) {
    this.#routes = (this.flags.route ?? []).map(parseRoute)
    return {forwardTo, routes: this.#routes, headers: parseHeaders(this.flags.header ?? [])}
  }

  /** Where the listener key and journal of each profile are kept. */
  #stateDir(): string {
    return privateSubdir(this.runtime.configDir, 'webhooks')
  }

  /** Print an event; the promise settles once its stdout line is written (or could not be). */
  render(event: ListenEvent): Promise<void> | undefined {
    const out = this.io.out
    const e = event.type === 'ready' ? {...event, routes: this.#routes} : event
    if (this.jsonEnabled()) return writeOut(out, this.jsonLine(e))
    const {stdout, stderr} = listenLines(e, this.flags.debug, this.io.err)
    const written =
      stdout === undefined ? undefined : writeOut(out, `${terminalSafe(stdout, {lines: true})}\n`)
    if (stderr !== undefined) this.io.err.write(`${terminalSafe(stderr, {lines: true})}\n`)
    return written
  }
}

/** Write to stdout, rejecting with OUTPUT_CLOSED when its reader went away (EPIPE). */
function writeOut(out: OutputStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      const closed = err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED'
      reject(
        new PayctlError({
          kind: 'api',
          code: closed ? 'OUTPUT_CLOSED' : 'OUTPUT_FAILED',
          message: closed ? 'stdout was closed' : `cannot write to stdout: ${err.code ?? err.message}`,
          cause: err,
        }),
      )
    }
    if (out.closed) {
      failed(Object.assign(new Error('stdout is closed'), {code: 'ERR_STREAM_DESTROYED'}))
      return
    }
    out.write(text, (err) => (err ? failed(err) : resolve()))
  })
}
