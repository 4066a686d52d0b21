import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {pagerFlag} from '../../cli/flags.js'
import {
  logCard,
  logLine,
  parseRequestId,
  parseSince,
  parseStatusFilter,
} from '../../cli/views/request-log-views.js'
import type {RequestLogEntry, RequestLogQuery} from '../../contract/index.js'
import {PayctlError} from '../../core/index.js'

/** How often --follow asks for new lines. */
const FOLLOW_EVERY_MS = 500

export default class SandboxLogs extends BaseCommand<typeof SandboxLogs> {
  static override summary = "show the local sandbox's request log: your requests, oldest first"
  static override handlesInterrupt = true
  static override description =
    `One line per request the sandbox answered, whether it runs in the foreground or detached: time, status, method, path, duration, request id, then the error code, "replayed" for an idempotent replay, and an injected fault. Never a body or a credential. The profile's partner sees its own requests; the sandbox's operator (the partner it started with) also sees those no credential was admitted for (health checks, failed sign-ins).
--request shows one request in full (the request id an error printed); --follow keeps printing new requests until Ctrl-C, asking the sandbox every half second.
With --json: {"entries": [...]}; with --follow --json, one JSON object per line.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --status 4xx,5xx --since 1h',
    '<%= config.bin %> <%= command.id %> --follow --path "/v1/transactions**"',
    '<%= config.bin %> <%= command.id %> --request req_0193a7c2f1e0a1b2c3d4e5f6 --json',
  ]
  static override flags = {
    follow: Flags.boolean({char: 'f', summary: 'keep printing new requests as they come, until Ctrl-C'}),
    status: Flags.string({
      summary: 'only answers of these classes or statuses: 4xx, 5xx, 429, several with commas',
      parse: async (value) => parseStatusFilter(value),
    }),
    path: Flags.string({
      summary: 'only paths matching this glob: * within a segment, ** across, e.g. "/v1/wallets/*"',
    }),
    since: Flags.string({
      summary: 'only requests since then: 15m, 2h, 7d back, or a date or time (2026-05-01, 2026-05-01T12:00)',
    }),
    request: Flags.string({
      summary: 'show the request with this id in full (the request id an error printed)',
      exclusive: ['follow'],
      parse: async (value) => parseRequestId(value),
    }),
    limit: Flags.integer({
      summary: 'how many of the newest requests to show, 1 to 100',
      default: 20,
      min: 1,
      max: 100,
    }),
    utc: Flags.boolean({summary: 'show times in UTC rather than the local time zone'}),
    ...pagerFlag,
  }

  /** Through the pager in a terminal, but never a stream (--follow), which has no end to page. */
  protected override pagesOutput(): boolean {
    return this.flags?.follow !== true
  }

  /** Under --follow --json every line of stdout is one object, an error included. */
  protected override logJson(json: unknown): void {
    this.out.json(json, {oneLine: this.flags?.follow === true})
  }

  async run(): Promise<{entries: RequestLogEntry[]} | undefined> {
    this.requireLocal('the request log')
    const f = this.flags
    const filters: RequestLogQuery = {
      status: f.status,
      path: f.path,
      since: f.since === undefined ? undefined : parseSince(f.since, this.runtime.clock.now(), f.utc),
      request: f.request,
    }
    if (f.follow) return this.follow(filters)
    const page = await this.out.spin('Reading the request log', () =>
      this.api.call('listRequestLog', {query: {...filters, limit: f.request === undefined ? f.limit : 100}}),
    )
    if (f.request !== undefined) return this.showRequest(f.request, page.entries)
    for (const entry of page.entries) this.out.log(logLine(entry, f.utc, this.io.out))
    if (page.entries.length === 0)
      this.out.log(`No requests logged${filtered(filters) ? ' that match' : ''}.`)
    return {entries: page.entries}
  }

  showRequest(id: string, entries: RequestLogEntry[]): {entries: RequestLogEntry[]} {
    if (entries.length === 0) {
      throw new PayctlError({
        kind: 'api',
        code: 'NOT_FOUND',
        message: `no request ${id} in the sandbox's request log, among the requests of profile "${this.profile.name}"`,
        details: {requestId: id},
        suggestions: [
          'The log keeps the newest requests (about 30,000 beside a data file, 10,000 in memory), each shown to its own partner only.',
          'Try: payctl sandbox logs --status 4xx,5xx',
        ],
      })
    }
    // A replay carries the id of the request that produced it: both are shown.
    entries.forEach((entry, i) => {
      if (i > 0) this.out.log('')
      this.out.card(logCard(entry, this.flags.utc))
    })
    return {entries}
  }

  /** Print the newest lines, then every new one, until Ctrl-C or SIGTERM (exit 0). */
  async follow(filters: RequestLogQuery): Promise<undefined> {
    const controller = new AbortController()
    const stop = () => controller.abort()
    this.runtime.onSignal('SIGINT', stop)
    this.runtime.onSignal('SIGTERM', stop)
    let page = await this.api.call('listRequestLog', {query: {...filters, limit: this.flags.limit}})
    for (;;) {
      for (const entry of page.entries) this.#print(entry)
      if (controller.signal.aborted || this.io.out.closed) return undefined
      if (!page.hasMore) await pause(FOLLOW_EVERY_MS, controller.signal)
      if (controller.signal.aborted) return undefined
      page = await this.api.call('listRequestLog', {query: {...filters, cursor: page.cursor, limit: 100}})
    }
  }

  #print(entry: RequestLogEntry): void {
    if (this.jsonEnabled()) this.io.out.write(this.jsonLine(entry))
    else this.out.log(logLine(entry, this.flags.utc, this.io.out))
  }
}

const filtered = (q: RequestLogQuery) =>
  q.status !== undefined || q.path !== undefined || q.since !== undefined

/** Wait `ms`, or less if `signal` is aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, {once: true})
  })
}
