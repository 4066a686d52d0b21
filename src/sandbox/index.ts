// First, so that on a Node without node:sqlite the import fails with one line saying which it needs.
import './storage/sqlite.js'
import {randomBytes} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync, renameSync} from 'node:fs'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {z} from 'zod'
import {RESPONSE_SHAPES, type ResponseShape} from '../contract/api/envelope.js'
import {corsOriginProblem} from '../contract/cors-origin.js'
import {connectableHost, isLoopbackHost} from '../contract/loopback.js'
import {redactCredentials} from '../contract/redaction.js'
import {DueWork, SandboxClock} from './clock.js'
import {RETRY_SCHEDULES, type RetrySchedule, type SandboxContext, type SandboxSettings} from './context.js'
import {EventLog} from './event-log.js'
import {FaultStore} from './faults/injection.js'
import {FEATURES, openDatabase, SCHEMAS} from './features.js'
import {allowOrigins} from './http/cors.js'
import {IdempotencyStore} from './http/idempotency.js'
import {Cursors} from './http/pagination.js'
import {RateLimiter} from './http/rate-limiter.js'
import {buildServer, HEADERS_TIMEOUT_MS} from './http/server.js'
import {OwnerKinds} from './money/owners.js'
import {MoneyService} from './money/service.js'
import {readHeader, temporaryBeside} from './snapshots/file.js'
import {DEFAULT_SNAPSHOT_QUOTA, type SnapshotQuota} from './snapshots/quota.js'
import {checkedRows, removeDatabaseFile, SnapshotStore} from './snapshots/store.js'
import {checkpointInBackground} from './storage/checkpointer.js'
import type {Database} from './storage/database.js'
import {SNAPSHOT_KEY} from './storage/meta-shapes.js'
import {PartnerRows} from './tenancy/partner-rows.js'
import {PartnerDirectory, resolvePartner, type SandboxCredentials} from './tenancy/partners.js'
import {Tenants} from './tenancy/tenants.js'
import {TokenService} from './tenancy/tokens.js'

export {RETRY_SCHEDULES, type RetrySchedule} from './context.js'
export {EventLog, type RecordedEvent, recordEvent} from './event-log.js'
export {RATE_LIMITS} from './http/rate-limiter.js'
export type {SnapshotQuota} from './snapshots/quota.js'
export type {SandboxCredentials} from './tenancy/partners.js'

export interface SandboxOptions {
  /** TCP port; default 4010, 0 for an ephemeral one. */
  port?: number
  /** Interface to listen on; default 127.0.0.1. */
  host?: string
  /** SQLite file path, or ':memory:' (the default). */
  data?: string
  /** Success and error body shape of the business endpoints; default 'envelope'. */
  responseShape?: ResponseShape
  /** Lifetime of Variant A access tokens in seconds; default 604800 (7 days). */
  tokenTtlSeconds?: number
  /** 'spec' applies the spec's sandbox rate limits; 'off' disables them. Default 'spec'. */
  rateLimit?: 'spec' | 'off'
  /**
   * Seconds that stand for "1-3 days" (and crypto's minutes): when ACH, wire and crypto payments
   * settle on the sandbox clock. Default 5; 0 settles them at the next tick.
   */
  settleAfterSeconds?: number
  /**
   * Webhook retry schedule: 'realtime' (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) or 'fast' for
   * local work (0.5 s, 1 s, 2 s, 5 s, 10 s, 30 s, 1 min); both with ±10% jitter. Default 'realtime'.
   */
  webhookRetries?: RetrySchedule
  /**
   * Every wait of webhook delivery multiplied by this: the retry schedule's and how long a reorder
   * fault holds first attempts back. Default 1; tests that prove retries without waiting for them
   * give 0.1 (docs/webhooks.md#delivery-and-retries).
   */
  webhookWaitScale?: number
  /** Fix (some of) the partner's credentials; the rest are reused from the data file or generated. */
  credentials?: Partial<SandboxCredentials>
  /**
   * Called with one line per request (method, path, status, duration, request id) and what goes
   * wrong in the background; credentials in them redacted.
   */
  log?: (line: string) => void
  /** How long a client may take to send a request's headers (408 past it); default 10 s. */
  headersTimeoutMs?: number
  /**
   * Where named snapshots are kept (a folder per partner): default, beside the data file
   * (`FILE.snapshots`), or a new temporary folder for `:memory:`.
   */
  snapshotDir?: string
  /** Start from a snapshot: a name among the operator's snapshots, or a snapshot file's path. */
  fromSnapshot?: {name: string} | {path: string}
  /**
   * The key (32 bytes, base64) that seals the snapshot files this sandbox writes, so that it restores
   * them without rebuilding their rows: sandboxes given the same key trust each other's files. Never
   * in a snapshot nor an answer. Default: one kept in the data file (docs/sandbox.md#snapshots).
   */
  snapshotKey?: string
  /** How much each partner may keep in snapshot files; default 100 files and 512 MiB. */
  snapshotQuota?: SnapshotQuota
  /** Serve the browser inspector at /_sandbox/ui (docs/inspector.md); default true. */
  ui?: boolean
  /**
   * The wall clock, in ms since the epoch, that token lifetimes and rate-limit windows are read on;
   * default `Date.now`. Not a partner's clock (`/_sandbox/clock`): a test gives its own to see a
   * token expire or a window end without waiting for it.
   */
  now?: () => number
  /**
   * Origins (`http://localhost:3000`) whose pages may call the API from a browser: CORS, off by
   * default; never `*`, never with cookies (docs/sandbox.md#cors).
   */
  cors?: string[]
}

export interface RunningSandbox {
  /** Base address without the version prefix, e.g. http://127.0.0.1:4010. */
  url: string
  port: number
  host: string
  credentials: SandboxCredentials
  close(): Promise<void>
}

export const DEFAULT_PORT = 4010
export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_TOKEN_TTL_SECONDS = 604_800
export const DEFAULT_SETTLE_AFTER_SECONDS = 5

const OptionsSchema = z.object({
  port: z.number().int().min(0).max(65_535).default(DEFAULT_PORT),
  host: z.string().min(1).default(DEFAULT_HOST),
  data: z.string().min(1).default(':memory:'),
  responseShape: z.enum(RESPONSE_SHAPES).default('envelope'),
  tokenTtlSeconds: z.number().int().positive().default(DEFAULT_TOKEN_TTL_SECONDS),
  rateLimit: z.enum(['spec', 'off']).default('spec'),
  webhookRetries: z.enum(RETRY_SCHEDULES).default('realtime'),
  webhookWaitScale: z.number().positive().max(1).default(1),
  settleAfterSeconds: z
    .number()
    .int()
    .min(0)
    .max(365 * 86_400)
    .default(DEFAULT_SETTLE_AFTER_SECONDS),
  headersTimeoutMs: z.number().int().min(100).max(60_000).default(HEADERS_TIMEOUT_MS),
  snapshotDir: z.string().min(1).optional(),
  snapshotKey: z
    .string()
    .refine((v) => SNAPSHOT_KEY.valid(v), SNAPSHOT_KEY.what)
    .optional(),
  snapshotQuota: z
    .object({files: z.number().int().min(0), bytes: z.number().int().min(0)})
    .default(DEFAULT_SNAPSHOT_QUOTA),
  ui: z.boolean().default(true),
  cors: z
    .array(
      z.string().superRefine((origin, check) => {
        const problem = corsOriginProblem(origin)
        if (problem !== undefined) check.addIssue({code: 'custom', message: problem})
      }),
    )
    .default([]),
})

function packageVersion(): string {
  try {
    // Two levels up from src/sandbox and from dist/sandbox alike.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string
    }
    return pkg.version ?? '0.0.0'
  } catch {
    return '0.0.0'
  }
}

/** The settings a running sandbox reports and its features read. */
function settingsOf(options: z.output<typeof OptionsSchema>): SandboxSettings {
  return {
    responseShape: options.responseShape,
    rateLimit: options.rateLimit,
    tokenTtlSeconds: options.tokenTtlSeconds,
    startedAt: new Date().toISOString(),
    version: packageVersion(),
    webhookRetries: options.webhookRetries,
    webhookWaitScale: options.webhookWaitScale,
    settleAfterSeconds: options.settleAfterSeconds,
    headersTimeoutMs: options.headersTimeoutMs,
    listensBeyondLoopback: !isLoopbackHost(options.host),
    dataFile: options.data,
    ui: options.ui,
  }
}

/** Where named snapshots are kept: as given, beside the data file, or a new temporary folder for :memory:. */
function snapshotDirOf(options: {data: string; snapshotDir?: string | undefined}): string {
  if (options.snapshotDir !== undefined) return options.snapshotDir
  return options.data === ':memory:'
    ? mkdtempSync(join(tmpdir(), 'payctl-snapshots-'))
    : `${options.data}.snapshots`
}

/** Everything the sandbox is made of, for the partners it serves, on an open data file. */
function contextOf(
  database: Database,
  tokens: TokenService,
  partnerId: string,
  options: z.output<typeof OptionsSchema>,
  now: () => number,
): SandboxContext {
  const events = new EventLog(database)
  const clock = new SandboxClock(database)
  const partners = new PartnerDirectory(database, partnerId)
  const money = new MoneyService({database, events, clock, settleAfterSeconds: options.settleAfterSeconds})
  // The kernel's settlement first: features' due work reads what it settled.
  const due = new DueWork(clock, () => partners.ids())
  due.add((partner, nowMs) => money.settleDue(partner, nowMs))
  const limiter = new RateLimiter(options.rateLimit === 'spec', now)
  const partnerRows = new PartnerRows(database, SCHEMAS)
  const faults = new FaultStore()
  const snapshots = new SnapshotStore({
    database,
    partnerRows,
    partners,
    clock,
    faults,
    schemas: SCHEMAS,
    key: snapshotKeyOf(database, options.snapshotKey),
    quota: options.snapshotQuota,
    settings: {exposed: !isLoopbackHost(options.host)},
    dir: snapshotDirOf(options),
  })
  // What a partner keeps in memory goes with its rows: a reset puts its clock back on real time
  // and ends its faults on demand, a deleted partner's credentials and budgets are gone at once.
  partnerRows.afterDelete((partner, which) => {
    clock.forget(partner)
    faults.clear(partner)
    if (which === 'records') return
    partners.forget(partner)
    limiter.forget(partner)
    tokens.forget(partner)
  })
  return {
    database,
    partners,
    tokens,
    limiter,
    events,
    clock,
    money,
    owners: new OwnerKinds(FEATURES.flatMap((feature) => feature.owners ?? [])),
    tenants: new Tenants(database),
    partnerRows,
    due,
    faults,
    snapshots,
    idempotency: new IdempotencyStore(database),
    cursors: new Cursors(database),
    settings: settingsOf(options),
    now,
  }
}

/** The key given, or the one the data file keeps (made the first time). */
function snapshotKeyOf(database: Database, given: string | undefined): Buffer {
  const key =
    given ?? database.metaValue('snapshot_key', () => randomBytes(32).toString('base64'), SNAPSHOT_KEY)
  return Buffer.from(key, 'base64')
}

/** Restore the operator from a named snapshot or a snapshot file before the sandbox serves anyone. */
async function startFrom(
  snapshots: SnapshotStore,
  operator: string,
  from: {name: string} | {path: string},
): Promise<void> {
  if ('name' in from)
    await snapshots.restore(operator, snapshots.find(operator, from.name).path, `snapshot ${from.name}`)
  else await snapshots.restore(operator, from.path, from.path)
}

/**
 * A new data file started from a snapshot file is that snapshot's rows, copied as they are: its
 * partner (for a whole sandbox, its operator) is the operator, under its own id and credentials.
 * Returns that partner's id, or undefined when the sandbox starts otherwise (restoring into the
 * operator of a data file that exists, or of one in memory).
 */
async function adoptSnapshot(
  options: {data: string; host: string; snapshotKey?: string | undefined},
  opts: SandboxOptions,
): Promise<string | undefined> {
  const from = opts.fromSnapshot
  if (from === undefined || !('path' in from) || options.data === ':memory:' || existsSync(options.data))
    return undefined
  const header = readHeader(from.path, from.path)
  if (opts.credentials?.partnerId !== undefined && opts.credentials.partnerId !== header.partnerId)
    return undefined
  // A file this sandbox's key sealed is taken as it is; any other is rebuilt and checked first.
  const key = options.snapshotKey === undefined ? randomBytes(32) : Buffer.from(options.snapshotKey, 'base64')
  const scratch = [
    temporaryBeside(options.data, '.db.tmp'),
    temporaryBeside(options.data, '.db.tmp'),
  ] as const
  try {
    const settings = {exposed: !isLoopbackHost(options.host)}
    const rows = await checkedRows(from.path, header, scratch, {
      schemas: SCHEMAS,
      key,
      settings,
      what: from.path,
    })
    renameSync(rows.file, options.data)
  } finally {
    for (const file of scratch) removeDatabaseFile(file)
  }
  return header.partnerId
}

/** Start the sandbox server; resolves once it is listening. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const parsed = OptionsSchema.safeParse(opts)
  if (!parsed.success) throw new TypeError(`invalid sandbox options: ${z.prettifyError(parsed.error)}`)
  const options = parsed.data
  // Every line, whatever wrote it (a request's path, an error), passes the logs' one redaction.
  const write = opts.log
  const log = write && ((line: string) => write(redactCredentials(line)))
  const adopted = await adoptSnapshot(options, opts)
  const database = openDatabase(options.data)
  let server: {close(): Promise<unknown>} | undefined
  try {
    const now = opts.now ?? Date.now
    const tokens = await TokenService.open(database, now)
    // Set up in one transaction: a data file refused as damaged half-way is left as it was.
    const {ctx, app, credentials} = database.transaction(() => {
      const credentials = resolvePartner(database, {
        ...opts.credentials,
        ...(adopted === undefined ? {} : {partnerId: adopted}),
      })
      const ctx = contextOf(database, tokens, credentials.partnerId, options, now)
      const app = buildServer(ctx, FEATURES, {log})
      // Registered before it listens, its hooks run ahead of every route's own (authentication first).
      allowOrigins(app, options.cors)
      return {ctx, app, credentials}
    })
    server = app
    // Outside the set-up's transaction: a restore attaches the snapshot's file, which SQLite does only there.
    if (opts.fromSnapshot !== undefined && adopted === undefined)
      await startFrom(ctx.snapshots, credentials.partnerId, opts.fromSnapshot)
    // Setup wrote synchronously; from here on, the writes of one event-loop turn commit together.
    database.groupCommits()
    await app.listen({port: options.port, host: options.host})
    const ticks = ctx.due.tick(log)
    const purges = ctx.idempotency.sweep(log)
    const checkpoints = checkpointInBackground(database, log)
    const port = (app.server.address() as AddressInfo).port
    let closing: Promise<void> | undefined
    return {
      // A client connects to loopback where the server binds the unspecified address.
      url: `http://${connectableHost(options.host)}:${port}`,
      port,
      host: options.host,
      credentials,
      close() {
        ticks.stop()
        purges.stop()
        closing ??= closeServer(app, CLOSE_GRACE_MS)
          .then(() => checkpoints.stop())
          .then(() => database.close())
        return closing
      },
    }
  } catch (err) {
    // What started with the server (the webhook scheduler) stops before the database closes.
    await server?.close().catch(() => undefined)
    database.close()
    throw err
  }
}

/** How long requests in flight at close get to finish before their connections are cut. */
const CLOSE_GRACE_MS = 5_000

/**
 * Close the server: no new connection is taken, requests in flight get `graceMs` to finish, then
 * every connection still open is cut (a stream such as `sandbox logs --follow` whose client went
 * quiet, or a request a proxy holds), so that closing always ends.
 */
async function closeServer(
  app: {close(): Promise<unknown>; server: {closeAllConnections(): void}},
  graceMs: number,
): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs)
  cut.unref()
  try {
    await app.close()
  } finally {
    clearTimeout(cut)
  }
}
