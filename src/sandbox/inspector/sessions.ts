import {createHash, randomBytes, timingSafeEqual} from 'node:crypto'

/** A signed-in browser: whose partner it acts for, and the token its changes must carry. */
export interface Session {
  partnerId: string
  csrfToken: string
  /** When it was last used (real time): an idle session ends. */
  lastSeenMs: number
}

/** An idle session ends after this long (real time, not the partner's clock). */
export const SESSION_IDLE_MS = 12 * 3600_000
/** Live sessions one partner keeps at most: signing in past it ends that partner's least recently used. */
export const SESSIONS_PER_PARTNER = 20
/** Live sessions of all partners together: past it, idle ones make room, or a sign-in below its partner's bound is refused. */
export const MAX_SESSIONS = 10_000

/** How many sessions are kept: per partner, and in all. */
export interface SessionLimits {
  perPartner: number
  total: number
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex')

/** Constant-time equality of two tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * The inspector's sessions, in memory only: a restart signs everyone out, and nothing of them
 * reaches the data file or a snapshot. Kept by the digest of their cookie, so that a heap dump
 * does not hand out live cookies; each tied to its partner, and ended with it. The bounds are per
 * partner first, so that one partner signing in again and again ends only its own sessions.
 */
export class Sessions {
  readonly #byDigest = new Map<string, Session>()
  /** Each partner's session keys, least recently used first. */
  readonly #byPartner = new Map<string, Set<string>>()
  readonly #ended: ((cookieDigest: string) => void)[] = []

  constructor(
    private readonly now: () => number = Date.now,
    private readonly limits: SessionLimits = {perPartner: SESSIONS_PER_PARTNER, total: MAX_SESSIONS},
  ) {}

  /**
   * A new session for `partnerId`: the cookie's value, shown once, and the session. A partner at
   * its bound gives up its least recently used; otherwise, when the sandbox holds as many as it
   * keeps and none is idle, undefined: another partner's session never gives way.
   */
  open(partnerId: string): {cookie: string; session: Session} | undefined {
    const mine = this.#byPartner.get(partnerId) ?? new Set<string>()
    if (mine.size >= this.limits.perPartner) this.#end(mine.values().next().value!)
    else if (this.#byDigest.size >= this.limits.total && !this.#endIdle()) return undefined
    const cookie = randomBytes(32).toString('base64url')
    const session = {partnerId, csrfToken: randomBytes(24).toString('base64url'), lastSeenMs: this.now()}
    const key = digest(cookie)
    this.#byDigest.set(key, session)
    this.#byPartner.set(partnerId, mine.add(key))
    return {cookie, session}
  }

  /** The session of a cookie, if it is live (using it keeps it so); undefined otherwise. */
  find(cookie: string | undefined): {session: Session; key: string} | undefined {
    if (cookie === undefined || cookie === '') return undefined
    const key = digest(cookie)
    const session = this.#byDigest.get(key)
    if (session === undefined) return undefined
    const now = this.now()
    if (this.#idle(session, now)) {
      this.#end(key)
      return undefined
    }
    session.lastSeenMs = now
    // Most recently used last: the partner's first key is the one to end when it is at its bound.
    const mine = this.#byPartner.get(session.partnerId)!
    mine.delete(key)
    mine.add(key)
    return {session, key}
  }

  /** End one session (signing out). */
  close(key: string): void {
    this.#end(key)
  }

  /** End every session of a partner (its rows were deleted). */
  endPartner(partnerId: string): void {
    for (const key of [...(this.#byPartner.get(partnerId) ?? [])]) this.#end(key)
  }

  /** Be told when a session ends, by its key (its live streams close). */
  onEnd(listener: (key: string) => void): void {
    this.#ended.push(listener)
  }

  get size(): number {
    return this.#byDigest.size
  }

  #idle(session: Session, now: number): boolean {
    return now - session.lastSeenMs > SESSION_IDLE_MS
  }

  /** End every session idle too long; whether there was one. */
  #endIdle(): boolean {
    const now = this.now()
    const idle = [...this.#byDigest].filter(([, session]) => this.#idle(session, now))
    for (const [key] of idle) this.#end(key)
    return idle.length > 0
  }

  #end(key: string): void {
    const session = this.#byDigest.get(key)
    if (session === undefined) return
    this.#byDigest.delete(key)
    const mine = this.#byPartner.get(session.partnerId)
    mine?.delete(key)
    if (mine?.size === 0) this.#byPartner.delete(session.partnerId)
    for (const listener of this.#ended) listener(key)
  }
}
