import {randomBytes} from 'node:crypto'
import type {EndpointBody, EndpointResult} from '../contract/index.js'
import type {PayctlClient} from './client.js'
import {connect} from './connect.js'
import {usageError} from './errors.js'
import {allItems} from './pagination.js'
import {fixtureFromDocument, loadFixture, type SeedResult, seed} from './seed/index.js'
import {downloadSnapshot, uploadSnapshot} from './snapshot-files.js'
import {Connections, type TransportOptions} from './transport.js'

/**
 * A sandbox as a test suite drives it: one partner's typed API client, and its control routes
 * (partners, snapshots, faults, its clock, reset) as typed calls, over HTTP. It works on any payctl
 * sandbox: one `startSandbox()` of `payctl/testing` started in this process, one in a test
 * runner's other process (from its `connection`), or `payctl sandbox start` (docs/library.md).
 */

/** A partner's credentials, in both variants, as a sandbox hands them out. */
export interface PartnerCredentials {
  partnerId: string
  /** Variant A public key, `pk_test_…`. */
  apiKey: string
  /** Variant A secret, `sk_test_…`. */
  apiSecret: string
  /** Variant B secret key, `test_…`. */
  secretKey: string
}

/** Where a sandbox is and who calls it: plain data, for a test runner to hand to its workers. */
export interface SandboxConnection {
  /** Base address without `/v1`, e.g. http://127.0.0.1:4010. */
  url: string
  credentials: PartnerCredentials
  /** The partner's name, for one made by `partners.create()`. */
  name?: string | undefined
}

export interface SandboxClientOptions extends TransportOptions {
  /**
   * How the client authenticates: `'B'` (default) sends the secret key; `'A'` exchanges the API key
   * and secret for an access token, kept in memory and renewed. Either may call the control routes.
   */
  variant?: 'A' | 'B'
}

/** How far `clock.advance()` moves: seconds, a duration (`90s`, `15m`, `2h`, `7d`), or a time to move to. */
export type ClockAdvance = number | string | {to: string | Date}

type Result<K extends Parameters<PayctlClient['call']>[0]> = EndpointResult<K>

const UNIT_SECONDS: Record<string, number> = {s: 1, m: 60, h: 3_600, d: 86_400}

/** The body of an advance: `{seconds}` or `{to}`; the sandbox checks the range. */
function advanceBody(by: ClockAdvance): EndpointBody<'sandboxAdvanceClock'> {
  if (typeof by === 'object') return {to: by.to instanceof Date ? by.to.toISOString() : by.to}
  if (typeof by === 'number') return {seconds: by}
  const m = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(by)
  if (!m)
    throw usageError(
      `clock.advance("${by}") takes seconds, a duration such as 90s, 15m, 2h or 7d, or {to: time}`,
      'INVALID_DURATION',
    )
  return {seconds: Number(m[1]) * UNIT_SECONDS[(m[2] || 's').toLowerCase()]!}
}

/** One partner of a sandbox: its API client, and the control routes as typed calls. */
export class SandboxClient {
  readonly url: string
  readonly credentials: PartnerCredentials
  readonly name: string | undefined
  /** The partner's API client: `api.call('createUser', {body})`, every operation of the contract. */
  readonly api: PayctlClient
  readonly #options: SandboxClientOptions
  readonly #connections: Connections
  readonly #ownsConnections: boolean

  constructor(connection: SandboxConnection, options: SandboxClientOptions = {}) {
    this.url = connection.url
    this.credentials = connection.credentials
    this.name = connection.name
    this.#ownsConnections = options.connections === undefined
    this.#connections = options.connections ?? new Connections()
    this.#options = {...options, connections: this.#connections}
    const {variant, ...transport} = this.#options
    const {apiKey, apiSecret, partnerId, secretKey} = connection.credentials
    this.api =
      variant === 'A'
        ? connect({...transport, baseUrl: this.url, apiKey, apiSecret, partnerId})
        : connect({...transport, baseUrl: this.url, secretKey, partnerId})
  }

  /** The URL and credentials, to reach this partner from another process (`sandboxClient(connection)`). */
  get connection(): SandboxConnection {
    return {url: this.url, credentials: {...this.credentials}, name: this.name}
  }

  /** The operator's: partners side by side on the sandbox, each isolated from every other. */
  readonly partners = {
    /** A new partner with fresh credentials (a name of its own by default), and its client. */
    create: async (name = `partner-${randomBytes(4).toString('hex')}`): Promise<SandboxClient> => {
      const made = await this.api.call('createPartner', {body: {name}})
      const {apiKey, apiSecret, partnerId, secretKey} = made
      // Over this client's connections: closing the operator's closes its partners' too.
      return new SandboxClient(
        {url: this.url, credentials: {apiKey, apiSecret, partnerId, secretKey}, name: made.name},
        this.#options,
      )
    },
    list: async (): Promise<Result<'listPartners'>['data']> => (await this.api.call('listPartners')).data,
    /** Delete a partner and every record of it; its credentials stop working at once. */
    delete: (name: string): Promise<Result<'deletePartner'>> =>
      this.api.call('deletePartner', {params: {name}}),
  }

  /** This partner's state saved under a name, and put back in one step (docs/sandbox.md#snapshots). */
  readonly snapshots = {
    /** Save (replacing a snapshot of that name); `all`: the operator's whole sandbox. */
    save: (name: string, opts: {all?: boolean} = {}): Promise<Result<'saveSnapshot'>> =>
      this.api.call('saveSnapshot', {body: {name, ...(opts.all ? {all: true} : {})}}),
    restore: (name: string): Promise<Result<'restoreSnapshot'>> =>
      this.api.call('restoreSnapshot', {params: {name}}),
    list: async (): Promise<Result<'listSnapshots'>['data']> => (await this.api.call('listSnapshots')).data,
    delete: (name: string): Promise<Result<'deleteSnapshot'>> =>
      this.api.call('deleteSnapshot', {params: {name}}),
    /** Copy snapshot `name` to a file on this machine; returns its size. */
    download: (name: string, path: string): Promise<number> => downloadSnapshot(this.api, name, path),
    /** Send a snapshot file, to be kept as `name` (then `restore(name)` puts it into this partner). */
    upload: (name: string, path: string) => uploadSnapshot(this.api, name, path),
  }

  /** Failures injected into this partner's own requests and webhook deliveries (docs/faults.md). */
  readonly faults = {
    /** Fail requests to a route: `{route: 'POST /v1/users', status: 503, times: 1}`. */
    add: (fault: EndpointBody<'addApiFault'>): Promise<Result<'addApiFault'>> =>
      this.api.call('addApiFault', {body: fault}),
    /** Duplicate, reorder, delay, fail or tamper with a webhook registration's deliveries. */
    addDelivery: (fault: EndpointBody<'addDeliveryFault'>): Promise<Result<'addDeliveryFault'>> =>
      this.api.call('addDeliveryFault', {body: fault}),
    list: async (): Promise<Result<'listFaults'>['faults']> => {
      const pages = allItems(
        (cursor) => this.api.call('listFaults', {query: {limit: 100, ...(cursor ? {cursor} : {})}}),
        (page) => page.faults,
      )
      const faults: Result<'listFaults'>['faults'] = []
      for await (const fault of pages) faults.push(fault)
      return faults
    },
    remove: (id: string): Promise<Result<'removeFault'>> => this.api.call('removeFault', {params: {id}}),
    /** Remove every fault of this partner; returns how many there were. */
    clear: async (): Promise<number> => (await this.api.call('clearFaults')).cleared,
  }

  /** This partner's clock: what dates its records and settles its payments (docs/sandbox.md#clocks). */
  readonly clock = {
    now: (): Promise<Result<'sandboxClock'>> => this.api.call('sandboxClock'),
    /** Move forward (`advance('1d')`, `advance(90)`, `advance({to})`), finishing what falls due. */
    advance: async (by: ClockAdvance): Promise<Result<'sandboxAdvanceClock'>> =>
      this.api.call('sandboxAdvanceClock', {body: advanceBody(by)}),
    freeze: (): Promise<Result<'sandboxFreezeClock'>> => this.api.call('sandboxFreezeClock'),
    resume: (): Promise<Result<'sandboxResumeClock'>> => this.api.call('sandboxResumeClock'),
  }

  /** The sandbox's health and settings. */
  health(): Promise<Result<'sandboxHealth'>> {
    return this.api.call('sandboxHealth')
  }

  /** Delete every record of this partner, keeping its credentials; its clock and faults start over. */
  async reset(): Promise<void> {
    await this.api.call('sandboxReset')
  }

  /**
   * Create what a fixture declares, as `payctl seed` does (docs/seed.md): a fixture file's path, or
   * the document itself. Returns the ids by fixture name (`{wallets: {alice_usd: {id}}}`).
   */
  async seed(
    fixture: string | object,
    opts: {concurrency?: number; env?: NodeJS.ProcessEnv} = {},
  ): Promise<SeedResult> {
    const env = opts.env ?? process.env
    const loaded =
      typeof fixture === 'string' ? await loadFixture(fixture, env) : await fixtureFromDocument(fixture, env)
    return seed(this.api, loaded, {concurrency: opts.concurrency ?? 8})
  }

  /** Close this client's connections (the partners' made from it share them). */
  async close(): Promise<void> {
    if (this.#ownsConnections) await this.#connections.close()
  }
}

/** A client of one partner of a running sandbox (`startSandbox()`'s, or its `connection` handed over). */
export function sandboxClient(
  connection: SandboxConnection,
  options: SandboxClientOptions = {},
): SandboxClient {
  return new SandboxClient(connection, options)
}
