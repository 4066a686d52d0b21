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
/** Sessions kept at most; signing in past it ends the least recently used. */
const MAX_SESSIONS = 1_000

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
 * does not hand out live cookies; each tied to its partner, and ended with it.
 */
export class Sessions {
  readonly #byDigest = new Map<string, Session>()
  readonly #ended: ((cookieDigest: string) => void)[] = []

  constructor(private readonly now: () => number = Date.now) {}

  /** A new session for `partnerId`: the cookie's value, shown once, and the session. */
  open(partnerId: string): {cookie: string; session: Session} {
    if (this.#byDigest.size >= MAX_SESSIONS) this.#end(this.#byDigest.keys().next().value!)
    const cookie = randomBytes(32).toString('base64url')
    const session = {partnerId, csrfToken: randomBytes(24).toString('base64url'), lastSeenMs: this.now()}
    this.#byDigest.set(digest(cookie), session)
    return {cookie, session}
  }

  /** The session of a cookie, if it is live (using it keeps it so); undefined otherwise. */
  find(cookie: string | undefined): {session: Session; key: string} | undefined {
    if (cookie === undefined || cookie === '') return undefined
    const key = digest(cookie)
    const session = this.#byDigest.get(key)
    if (session === undefined) return undefined
    const now = this.now()
    if (now - session.lastSeenMs > SESSION_IDLE_MS) {
      this.#end(key)
      return undefined
    }
    session.lastSeenMs = now
    // Most recently used last: the first key is the one to end when full.
    this.#byDigest.delete(key)
    this.#byDigest.set(key, session)
    return {session, key}
  }

  /** End one session (signing out). */
  close(key: string): void {
    this.#end(key)
  }

  /** End every session of a partner (its rows were deleted). */
  endPartner(partnerId: string): void {
    for (const [key, session] of this.#byDigest) if (session.partnerId === partnerId) this.#end(key)
  }

  /** Be told when a session ends, by its key (its live streams close). */
  onEnd(listener: (key: string) => void): void {
    this.#ended.push(listener)
  }

  get size(): number {
    return this.#byDigest.size
  }

  #end(key: string): void {
    if (!this.#byDigest.delete(key)) return
    for (const listener of this.#ended) listener(key)
  }
}
