import {createHash, randomBytes} from 'node:crypto'

/** How long a sign-in link may wait for its one visit. */
export const LINK_TTL_MS = 60_000
/** Unused links one partner keeps at most: minting past it drops its oldest. */
export const LINKS_PER_PARTNER = 20

const digest = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * One-time sign-in links (`payctl sandbox ui`), as Jupyter's token URLs: each signs one browser
 * in as its partner, once, within LINK_TTL_MS of being minted. In memory only, kept by the
 * digest of their token; a restart ends them all.
 */
export class SignInLinks {
  readonly #byDigest = new Map<string, {partnerId: string; expiresAtMs: number}>()

  constructor(private readonly now: () => number = Date.now) {}

  /** A new link's token (shown once) and when it expires, for `partnerId`. */
  mint(partnerId: string): {token: string; expiresAtMs: number} {
    this.#sweep()
    const mine = [...this.#byDigest].filter(([, link]) => link.partnerId === partnerId)
    if (mine.length >= LINKS_PER_PARTNER) this.#byDigest.delete(mine[0]![0])
    const token = randomBytes(32).toString('base64url')
    const expiresAtMs = this.now() + LINK_TTL_MS
    this.#byDigest.set(digest(token), {partnerId, expiresAtMs})
    return {token, expiresAtMs}
  }

  /** The partner a token signs in, used up by asking; undefined when unknown, used or expired. */
  redeem(token: unknown): string | undefined {
    if (typeof token !== 'string' || token === '') return undefined
    const key = digest(token)
    const link = this.#byDigest.get(key)
    this.#byDigest.delete(key)
    if (link === undefined || this.now() >= link.expiresAtMs) return undefined
    return link.partnerId
  }

  /** Forget every link of a partner (its rows were deleted). */
  endPartner(partnerId: string): void {
    for (const [key, link] of this.#byDigest) if (link.partnerId === partnerId) this.#byDigest.delete(key)
  }

  get size(): number {
    return this.#byDigest.size
  }

  #sweep(): void {
    const now = this.now()
    for (const [key, link] of this.#byDigest) if (now >= link.expiresAtMs) this.#byDigest.delete(key)
  }
}
