import {INSPECTOR_PATH, type InspectorRead, type SearchResult} from '../../contract/inspector.js'
import type {RawInput, ServingContext} from '../context.js'
import {ApiError} from '../http/api-error.js'

/** Who an operation runs for: the signed-in partner, as its secret key would make it. */
type Principal = NonNullable<RawInput['principal']>

/** The parts of the sandbox the inspector runs on. */
export type InspectorContext = Pick<ServingContext, 'operation' | 'partners' | 'database'>

/** The page each kind of id opens, and the operation that finds it. */
const PAGES = {
  usr: {read: 'getUser', page: 'users', what: 'user'},
  wal: {read: 'getWallet', page: 'wallets', what: 'wallet'},
  txn: {read: 'getTransaction', page: 'transactions', what: 'transaction'},
  evt: {read: 'getEvent', page: 'events', what: 'event'},
} as const satisfies Record<string, {read: InspectorRead; page: string; what: string}>

/** An id of a record (its prefix and 24 hex characters), or of a request. */
const RECORD_ID = /^(usr|wal|txn|evt)_[0-9a-f]{24}$/
const REQUEST_ID = /^req_[0-9a-f]{24}$/

/**
 * What the inspector's pages read and change, for a signed-in partner: the very operations that
 * serve the API (each feature's service behind them, the tenant check included), run in this
 * process. No HTTP request, token, rate limit or request-log line: the inspector looks at the
 * partner's traffic without adding to it.
 */
export class InspectorService {
  constructor(private readonly ctx: InspectorContext) {}

  /** The partner of a session, while it exists: a deleted partner's sessions are over. */
  principalOf(partnerId: string): Principal {
    const partner = this.ctx.partners.get(partnerId)
    if (partner === undefined) throw new ApiError('SIGN_IN_REQUIRED', 'Sign in again: this partner is gone')
    return {kind: 'secret-key', partner}
  }

  /** The partner's name as the operator named it (its id for the operator itself). */
  nameOf(partnerId: string): string {
    return this.ctx.partners.list().find((p) => p.partnerId === partnerId)?.name ?? partnerId
  }

  /** Run a read operation for the partner, with the path's `id` and the query as the API takes them. */
  async read(
    partnerId: string,
    operationId: InspectorRead,
    input: {id?: string | undefined; query?: Record<string, unknown>},
  ): Promise<unknown> {
    return this.#run(partnerId, operationId, input.id, input.query ?? {}, undefined)
  }

  /** Deliver an event again to every registration that selects it, as `events resend` does. */
  resend(partnerId: string, eventId: string): Promise<unknown> {
    return this.#run(partnerId, 'resendEvent', eventId, {}, {})
  }

  /** Move the partner's clock (`{seconds}` or `{to}`) and run what fell due, as `sandbox advance` does. */
  advance(partnerId: string, body: unknown): Promise<unknown> {
    return this.#run(partnerId, 'sandboxAdvanceClock', undefined, {}, body)
  }

  /**
   * Where a search leads: an id opens its record's page (if the partner has it); anything else the
   * users whose email or name contains it (in any case), the one user with that very email first.
   */
  async search(partnerId: string, text: string): Promise<SearchResult> {
    const q = text.trim()
    if (q === '')
      return {
        kind: 'none',
        message: 'Type an id (usr_, wal_, txn_, evt_, req_), or a part of an email or a name',
      }
    const prefix = q.slice(0, 3)
    if (RECORD_ID.test(q) && prefix in PAGES) {
      const {read, page, what} = PAGES[prefix as keyof typeof PAGES]
      const found = await this.#exists(() => this.read(partnerId, read, {id: q}))
      return found
        ? {kind: 'found', path: `${INSPECTOR_PATH}/${page}/${q}`}
        : {kind: 'none', message: `No ${what} ${q} in this partner`}
    }
    if (REQUEST_ID.test(q)) {
      const page = (await this.read(partnerId, 'listRequestLog', {query: {request: q}})) as {
        entries: unknown[]
      }
      return page.entries.length > 0
        ? {kind: 'found', path: `${INSPECTOR_PATH}/requests/${q}`}
        : {kind: 'none', message: `No request ${q} in this partner's request log`}
    }
    // The rule of `payctl users list --search` (GET /v1/users?search=), one user opening their page.
    const query = {search: q, limit: 20}
    const {users} = (await this.read(partnerId, 'listUsers', {query})) as {users: UserRecord[]}
    const exact = users.filter((u) => u.email?.toLowerCase() === q.toLowerCase())
    const one = users.length === 1 ? users[0] : exact.length === 1 ? exact[0] : undefined
    if (one !== undefined) return {kind: 'found', path: `${INSPECTOR_PATH}/users/${one.id}`}
    if (users.length > 1) return {kind: 'users', users: users.map(briefUser)}
    return {kind: 'none', message: `No user whose email or name contains ${q}`}
  }

  async #exists(find: () => Promise<unknown>): Promise<boolean> {
    try {
      await find()
      return true
    } catch (err) {
      if (err instanceof ApiError && err.code === 'NOT_FOUND') return false
      throw err
    }
  }

  async #run(
    partnerId: string,
    operationId: string,
    id: string | undefined,
    query: Record<string, unknown>,
    body: unknown,
  ): Promise<unknown> {
    const operation = this.ctx.operation(operationId)
    if (operation === undefined) throw new Error(`the inspector runs ${operationId}, which nothing serves`)
    const input: RawInput = {
      principal: this.principalOf(partnerId),
      body,
      query,
      params: id === undefined ? {} : {id},
      ip: 'inspector',
      setHeaders: () => undefined,
    }
    // A change commits whole with what it records, as its API request would.
    if (operation.endpoint.method !== 'GET') return this.ctx.database.transaction(() => operation.run(input))
    return operation.run(input)
  }
}

interface UserRecord {
  id: string
  email?: string
  first_name?: string
  last_name?: string
}

const briefUser = (u: UserRecord) => ({
  id: u.id,
  email: u.email ?? '',
  name: `${u.first_name ?? ''} ${u.last_name ?? ''}`.trim(),
})
