import {createHmac, randomBytes} from 'node:crypto'
import {type CryptoKey, decodeJwt, errors, jwtVerify, SignJWT} from 'jose'
import {z} from 'zod'
import type {Database} from '../storage/database.js'
import {newId} from '../storage/ids.js'
import {keyShape} from '../storage/meta-shapes.js'
import type {SandboxCredentials} from './partners.js'

const ALGORITHM = 'HS256'
/** Verified tokens remembered at most (see TokenService.verified). */
const VERIFIED_CACHE_SIZE = 1_000

const ClaimsSchema = z.object({
  sub: z.string(),
  partner_id: z.string(),
  scopes: z.array(z.string()),
  variant: z.enum(['A', 'B']),
  env: z.string(),
  jti: z.string(),
  /** The family: the jti of the token obtained with credentials, kept by every refresh from it. */
  fam: z.string(),
  /** The credential version the token was issued under (see TokenService.versionOf). */
  cv: z.string(),
  iat: z.number(),
  exp: z.number(),
})
export type TokenClaims = z.infer<typeof ClaimsSchema>

export type TokenVariant = TokenClaims['variant']

export type VerifiedToken =
  | {ok: true; claims: TokenClaims}
  | {ok: false; reason: 'expired'; expiredAt: string; variant: TokenVariant | undefined}
  | {ok: false; reason: 'invalid' | 'revoked' | 'wrong_env'; variant: TokenVariant | undefined}

/** The variant a token claims, read without verification: it only picks the shape of the refusal. */
function claimedVariant(token: string): TokenVariant | undefined {
  try {
    const v = decodeJwt(token).variant
    return v === 'A' || v === 'B' ? v : undefined
  } catch {
    return undefined
  }
}

/**
 * Issues and verifies the sandbox's JWTs (HS256). The signing key is made once per data file and
 * kept in it, so tokens outlive a restart; revoked token ids are kept there too.
 */
export class TokenService {
  private readonly revokedStmt
  private readonly revokeStmt
  private readonly generationStmt
  private readonly bumpStmt
  private readonly forgetStmt
  /** Credential versions by partner, computed once per partner and generation. */
  private readonly versions = new Map<string, {apiSecret: string; secretKey: string; version: string}>()
  /**
   * Tokens whose signature and claims were verified, by token text. A client sends the same token
   * with every request, and an HMAC check through WebCrypto costs more than the rest of a cheap
   * request; expiry and revocation are still checked on every use.
   */
  private readonly verified = new Map<string, TokenClaims>()
  /**
   * The revoked ids as the file holds them (a token's `jti`, a family's `family:<fam>`), read on
   * first use: a request checks them without asking SQLite. Read again after whatever may change
   * the file otherwise (a rollback, a restored file: Database.holds).
   */
  #revoked: Set<string> | undefined

  private constructor(
    private readonly key: CryptoKey,
    private readonly secret: string,
    database: Database,
    /** The wall clock tokens are issued and expire on (ms since the epoch). */
    private readonly now: () => number,
  ) {
    database.prepare('DELETE FROM revoked_tokens WHERE expires_at < ?').run(this.seconds())
    // A token is revoked by its own id, or by its family's (stored as `family:<fam>`).
    this.revokedStmt = database.prepare<{jti: string}>('SELECT jti FROM revoked_tokens')
    database.holds({forget: () => (this.#revoked = undefined)})
    this.revokeStmt = database.prepare('INSERT OR IGNORE INTO revoked_tokens (jti, expires_at) VALUES (?, ?)')
    this.generationStmt = database.prepare<{value: string}>('SELECT value FROM meta WHERE key = ?')
    this.bumpStmt = database.prepare(
      `INSERT INTO meta (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`,
    )
    this.forgetStmt = database.prepare('DELETE FROM meta WHERE key = ?')
  }

  static async open(database: Database, now: () => number = Date.now): Promise<TokenService> {
    const secret = database.metaValue(
      'jwt_signing_key',
      () => randomBytes(32).toString('base64'),
      keyShape(32),
    )
    const key = await crypto.subtle.importKey(
      'raw',
      Buffer.from(secret, 'base64'),
      {name: 'HMAC', hash: 'SHA-256'},
      false,
      ['sign', 'verify'],
    )
    return new TokenService(key, secret, database, now)
  }

  /** The current second, as tokens count time. */
  private seconds(): number {
    return Math.floor(this.now() / 1000)
  }

  async issue(input: {
    partnerId: string
    scopes: readonly string[]
    variant: TokenVariant
    ttlSeconds: number
    /** The partner's credentials: the token is valid only while they stay the same. */
    credentials: SandboxCredentials
    /** The family of the token this one refreshes; a new family otherwise. */
    family?: string | undefined
  }): Promise<{token: string; claims: TokenClaims}> {
    const iat = this.seconds()
    const jti = newId.token()
    const claims: TokenClaims = {
      sub: input.partnerId,
      partner_id: input.partnerId,
      scopes: [...input.scopes],
      variant: input.variant,
      env: 'sandbox',
      jti,
      fam: input.family ?? jti,
      cv: this.versionOf(input.credentials),
      iat,
      exp: iat + input.ttlSeconds,
    }
    const token = await new SignJWT(claims).setProtectedHeader({alg: ALGORITHM, typ: 'JWT'}).sign(this.key)
    return {token, claims}
  }

  /** A token's verification: at once when its signature was verified before, else through a promise. */
  verify(token: string): VerifiedToken | Promise<VerifiedToken> {
    return this.verifyKnown(token) ?? this.#verifySignature(token)
  }

  /**
   * What `verify` answers, without waiting, for a token whose signature was verified before; undefined
   * for another, whose signature `verify` must check.
   */
  verifyKnown(token: string): VerifiedToken | undefined {
    const known = this.verified.get(token)
    return known === undefined ? undefined : this.checkCurrent(known)
  }

  async #verifySignature(token: string): Promise<VerifiedToken> {
    let payload: unknown
    try {
      payload = (
        await jwtVerify(token, this.key, {algorithms: [ALGORITHM], currentDate: new Date(this.now())})
      ).payload
    } catch (err) {
      const variant = claimedVariant(token)
      if (err instanceof errors.JWTExpired && typeof err.payload.exp === 'number') {
        return {
          ok: false,
          reason: 'expired',
          expiredAt: new Date(err.payload.exp * 1000).toISOString(),
          variant,
        }
      }
      return {ok: false, reason: 'invalid', variant}
    }
    const parsed = ClaimsSchema.safeParse(payload)
    if (!parsed.success) return {ok: false, reason: 'invalid', variant: claimedVariant(token)}
    const claims = parsed.data
    if (claims.env !== 'sandbox') return {ok: false, reason: 'wrong_env', variant: claims.variant}
    // Bounded: a flood of distinct tokens only makes the cache start over.
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear()
    this.verified.set(token, claims)
    return this.checkCurrent(claims)
  }

  /** What a verified token is worth now: it may have expired or been revoked since. */
  private checkCurrent(claims: TokenClaims): VerifiedToken {
    // As jose decides: expired once `exp` is not after the current second.
    if (claims.exp <= this.seconds()) {
      return {
        ok: false,
        reason: 'expired',
        expiredAt: new Date(claims.exp * 1000).toISOString(),
        variant: claims.variant,
      }
    }
    const revoked = this.#revokedIds()
    if (revoked.has(claims.jti) || revoked.has(`family:${claims.fam}`)) {
      return {ok: false, reason: 'revoked', variant: claims.variant}
    }
    return {ok: true, claims}
  }

  /**
   * Revoke a token and its whole family: the token it was refreshed from and every token refreshed
   * from it, before or after. The family is remembered for good, since a refresh may have carried
   * it past this token's own expiry.
   */
  revoke(claims: TokenClaims): void {
    const revoked = this.#revokedIds()
    this.revokeStmt.run(claims.jti, claims.exp)
    this.revokeStmt.run(`family:${claims.fam}`, Number.MAX_SAFE_INTEGER)
    revoked.add(claims.jti).add(`family:${claims.fam}`)
  }

  #revokedIds(): Set<string> {
    this.#revoked ??= new Set(this.revokedStmt.all().map((row) => row.jti))
    return this.#revoked
  }

  /**
   * The credential version of a partner: a keyed hash of its API secret and secret key and of how
   * many times all its tokens were revoked. A token carries the version it was issued under, so
   * starting the sandbox with a new secret, or revoking all, ends every earlier token. Keyed with
   * the signing key, so a token reveals nothing of the secrets.
   */
  versionOf(partner: SandboxCredentials): string {
    const known = this.versions.get(partner.partnerId)
    if (known !== undefined && known.apiSecret === partner.apiSecret && known.secretKey === partner.secretKey)
      return known.version
    const row = this.generationStmt.get(`token_generation:${partner.partnerId}`)
    const version = createHmac('sha256', this.secret)
      .update(`${partner.apiSecret}\n${partner.secretKey}\n${row?.value ?? '0'}`)
      .digest('base64url')
      .slice(0, 16)
    this.versions.set(partner.partnerId, {
      apiSecret: partner.apiSecret,
      secretKey: partner.secretKey,
      version,
    })
    return version
  }

  /** Whether `claims` were issued under `partner`'s current credential version. */
  isCurrentVersion(claims: TokenClaims, partner: SandboxCredentials): boolean {
    return claims.cv === this.versionOf(partner)
  }

  /** Forget a deleted partner's credential version (its tokens already name an unknown partner). */
  forget(partnerId: string): void {
    this.forgetStmt.run(`token_generation:${partnerId}`)
    this.versions.delete(partnerId)
  }

  /** End every token of `partner` issued so far, access tokens and minted JWTs alike. */
  revokeAll(partnerId: string): void {
    this.bumpStmt.run(`token_generation:${partnerId}`)
    this.versions.delete(partnerId)
  }
}
