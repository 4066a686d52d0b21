import {
  createHmac,
  constants as cryptoConstants,
  sign as cryptoSign,
  generateKeyPairSync,
  randomBytes,
} from 'node:crypto'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {SCOPES_A} from '../../src/contract/api/scopes.js'
import {query, start, type TestSandbox, tempDir} from './helpers.js'

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** Sign a JWT by hand with the sandbox's own key, to prove what the verifier refuses. */
function forge(key: Buffer, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const alg = header.alg === 'HS512' ? 'sha512' : 'sha256'
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${createHmac(alg, key).update(input).digest('base64url')}`
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString())

describe('Variant A token exchange', () => {
  let t: TestSandbox
  const files = tempDir()
  let key: Buffer

  beforeAll(async () => {
    t = await start({data: files.file})
    const rows = query(files.file, "SELECT value FROM meta WHERE key = 'jwt_signing_key'")
    key = Buffer.from(String(rows[0]?.value), 'base64')
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  test('exchanges api key, secret and partner id for a 7-day access token with every scope', async () => {
    const res = await t.exchange()
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 604800,
      partner_id: t.creds.partnerId,
      scopes: [...SCOPES_A, 'sandbox:admin'],
    })
    const header = JSON.parse(Buffer.from(res.body.access_token.split('.')[0], 'base64url').toString())
    expect(header.alg).toBe('HS256')
    const claims = claimsOf(res.body.access_token)
    expect(claims).toMatchObject({
      sub: t.creds.partnerId,
      partner_id: t.creds.partnerId,
      variant: 'A',
      env: 'sandbox',
    })
    expect(claims.exp - claims.iat).toBe(604800)
    expect(claims.jti).toEqual(expect.any(String))
  })

  test('narrows the grant to the requested scopes', async () => {
    const res = await t.exchange({scopes: ['users:read']})
    expect(res.body.scopes).toEqual(['users:read'])
    const denied = await t.post(
      '/v1/users',
      {email: 'a@example.com', first_name: 'A', last_name: 'B'},
      {
        auth: res.body.access_token,
      },
    )
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({
      error: {
        code: 'INSUFFICIENT_SCOPE',
        message: expect.stringContaining('users:write'),
        details: {required_scope: 'users:write', granted_scopes: ['users:read']},
      },
      request_id: denied.headers.get('x-request-id'),
    })
  })

  test('refuses a wrong secret with INVALID_CREDENTIALS in the Variant A auth shape', async () => {
    const res = await t.exchange({api_secret: 'sk_test_wrong'})
    expect(res.status).toBe(401)
    expect(res.body).toEqual({
      error: {code: 'INVALID_CREDENTIALS', message: expect.any(String), details: {}},
      request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/),
    })
  })

  test('refuses a partner id that does not match the key', async () => {
    const res = await t.exchange({partner_id: 'partner_someone_else'})
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe('INVALID_CREDENTIALS')
  })

  test('refuses the key-only quickstart form, naming api_secret', async () => {
    const res = await t.post(
      '/v1/auth/token',
      {api_key: t.creds.apiKey, partner_id: t.creds.partnerId},
      {auth: null},
    )
    expect(res.status).toBe(401)
    expect(res.body.error).toMatchObject({code: 'INVALID_CREDENTIALS', details: {field: 'api_secret'}})
  })

  test('refuses live credentials at token exchange', async () => {
    const res = await t.exchange({api_key: 'pk_live_abc'})
    expect(res.status).toBe(401)
    expect(res.body.error.message).toMatch(/live/i)
  })

  test('answers a malformed token request with VALIDATION_ERROR in the Variant A auth shape', async () => {
    const res = await t.exchange({extra: true})
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({error: {code: 'VALIDATION_ERROR', details: {field: 'extra'}}})
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'))
  })

  test('refresh returns a new token record while the old token stays valid', async () => {
    const old = (await t.exchange({scopes: ['users:read', 'accounts:read']})).body.access_token
    const res = await t.post('/v1/auth/refresh', undefined, {auth: old})
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({token_type: 'Bearer', partner_id: t.creds.partnerId, expires_in: 604800})
    expect(res.body.scopes).toEqual(['users:read', 'accounts:read'])
    expect(res.body.access_token).not.toBe(old)
    expect(claimsOf(res.body.access_token).jti).not.toBe(claimsOf(old).jti)
    expect((await t.get('/v1/wallets', {auth: old})).status).toBe(200)
    expect((await t.get('/v1/wallets', {auth: res.body.access_token})).status).toBe(200)
  })

  test('refresh takes only a Variant A access token', async () => {
    const res = await t.post('/v1/auth/refresh', undefined, {auth: t.creds.secretKey})
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({error: {code: 'TOKEN_INVALID'}, request_id: expect.any(String)})
    const missing = await t.post('/v1/auth/refresh', undefined, {auth: null})
    expect(missing.status).toBe(401)
    expect(missing.body.error.code).toBe('TOKEN_INVALID')
  })

  test('a revoked token is refused as revoked, for business calls and for refresh', async () => {
    const token = (await t.exchange()).body.access_token
    const res = await t.post('/v1/auth/revoke', undefined, {auth: token})
    expect(res.status).toBe(200)
    expect(res.body).toEqual({revoked: true})
    for (const reply of [
      await t.get('/v1/wallets', {auth: token}),
      await t.post('/v1/auth/refresh', undefined, {auth: token}),
    ]) {
      expect(reply.status).toBe(401)
      expect(reply.body.error.code).toBe('TOKEN_INVALID')
      expect(reply.body.error.message).toMatch(/revoked/)
    }
  })

  test('refuses a token whose payload was altered after signing', async () => {
    const token: string = await t.token()
    const [h, , s] = token.split('.')
    const tampered = `${h}.${b64({...claimsOf(token), scopes: ['users:read', 'webhooks:write', 'extra']})}.${s}`
    const res = await t.get('/v1/wallets', {auth: tampered})
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe('TOKEN_INVALID')
  })

  test('refuses an unsigned alg:none token', async () => {
    const claims = claimsOf(await t.token())
    const res = await t.get('/v1/wallets', {auth: `${b64({alg: 'none', typ: 'JWT'})}.${b64(claims)}.`})
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe('TOKEN_INVALID')
  })

  test('refuses an HS512 token even when signed with the sandbox key', async () => {
    const claims = claimsOf(await t.token())
    const res = await t.get('/v1/wallets', {auth: forge(key, {alg: 'HS512', typ: 'JWT'}, claims)})
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe('TOKEN_INVALID')
    // The same claims signed with HS256 pass: the algorithm alone was refused.
    expect((await t.get('/v1/wallets', {auth: forge(key, {alg: 'HS256', typ: 'JWT'}, claims)})).status).toBe(
      200,
    )
  })

  test('refuses a token issued for another environment and garbage', async () => {
    const claims = claimsOf(await t.token())
    const live = await t.get('/v1/wallets', {
      auth: forge(key, {alg: 'HS256'}, {...claims, env: 'production'}),
    })
    expect(live.status).toBe(401)
    expect(live.body.error.code).toBe('TOKEN_INVALID')
    for (const garbage of ['garbage', 'a.b.c', 'eyJ.eyJ.sig']) {
      const res = await t.get('/v1/wallets', {auth: garbage})
      expect(res.status).toBe(401)
      expect(res.body).toMatchObject({error: {code: 'TOKEN_INVALID'}, request_id: expect.any(String)})
    }
  })

  test('an expired access token gets TOKEN_EXPIRED with expired_at', async () => {
    const claims = claimsOf(await t.token())
    const exp = Math.floor(Date.now() / 1000) - 10
    const res = await t.get('/v1/wallets', {auth: forge(key, {alg: 'HS256'}, {...claims, exp})})
    expect(res.status).toBe(401)
    expect(res.body.error).toEqual({
      code: 'TOKEN_EXPIRED',
      message: expect.any(String),
      details: {expired_at: new Date(exp * 1000).toISOString()},
    })
  })

  test('an expired minted JWT gets expired_token in the Variant B shape', async () => {
    const minted = (await t.post('/v1/auth/jwt', {scopes: ['balance:read']}, {auth: t.creds.secretKey})).body
      .token
    const exp = Math.floor(Date.now() / 1000) - 10
    const res = await t.get('/v1/wallets', {auth: forge(key, {alg: 'HS256'}, {...claimsOf(minted), exp})})
    expect(res.status).toBe(401)
    expect(res.body).toEqual({
      error: {code: 'expired_token', message: expect.any(String), type: 'authentication_error'},
    })
  })
})

describe('token lifetime', () => {
  test('a token expires after tokenTtlSeconds', async () => {
    // The sandbox reads the time from this clock: the token's last second passes without a wait.
    let now = Date.now()
    const t = await start({tokenTtlSeconds: 60, now: () => now})
    try {
      const res = await t.exchange()
      expect(res.body.expires_in).toBe(60)
      const token = res.body.access_token
      expect(claimsOf(token).exp - claimsOf(token).iat).toBe(60)
      now += 59_000
      expect((await t.get('/v1/wallets', {auth: token})).status).toBe(200)
      now += 1_000
      const expired = await t.get('/v1/wallets', {auth: token})
      expect(expired.status).toBe(401)
      expect(expired.body.error.code).toBe('TOKEN_EXPIRED')
      expect(Date.parse(expired.body.error.details.expired_at)).toBeLessThanOrEqual(now)
      expect(Date.parse(expired.body.error.details.expired_at)).toBe(claimsOf(token).exp * 1000)
    } finally {
      await t.close()
    }
  })
})

describe('Variant B keys and minted JWTs', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start()
  })
  afterAll(() => t.close())

  test('a test_ secret key works as Bearer and carries every permission', async () => {
    const created = await t.post(
      '/v1/users',
      {email: 'b@example.com', first_name: 'B', last_name: 'C'},
      {
        auth: t.creds.secretKey,
      },
    )
    expect(created.status).toBe(201)
    expect((await t.get(`/v1/users/${created.body.data.id}`, {auth: t.creds.secretKey})).status).toBe(200)
  })

  test('refuses a live_ key, saying the sandbox takes no live keys', async () => {
    const res = await t.get('/v1/users/usr_any', {auth: 'live_0123456789abcdef'})
    expect(res.status).toBe(401)
    expect(res.body).toEqual({
      error: {
        code: 'invalid_api_key',
        message: expect.stringMatching(/live keys are not accepted by the sandbox/i),
        type: 'authentication_error',
      },
    })
  })

  test('refuses an unknown test_ key', async () => {
    const res = await t.get('/v1/users/usr_any', {auth: 'test_unknown'})
    expect(res.status).toBe(401)
    expect(res.body.error).toMatchObject({code: 'invalid_api_key', type: 'authentication_error'})
  })

  test('POST /wallets alone refuses a bad key with its own INVALID_API_KEY; the other wallet routes like every route', async () => {
    const post = await t.post(
      '/v1/wallets',
      {userId: 'usr_x', currency: 'USD'},
      {auth: 'live_0123456789abcdef'},
    )
    expect(post.status).toBe(401)
    expect(post.body).toMatchObject({
      success: false,
      error: {code: 'INVALID_API_KEY'},
      meta: expect.any(Object),
    })
    for (const [method, path] of [
      ['GET', '/v1/wallets'],
      ['GET', '/v1/wallets/wal_any'],
      ['GET', '/v1/wallets/wal_any/balance'],
      ['PATCH', '/v1/wallets/wal_any'],
    ] as const) {
      const res = await t.call(method, path, {
        auth: 'test_unknown',
        body: method === 'PATCH' ? {label: 'x'} : undefined,
      })
      expect(res.status, path).toBe(401)
      expect(res.body, path).toEqual({
        error: {code: 'invalid_api_key', message: 'Unknown API key', type: 'authentication_error'},
      })
    }
    const minted = await t.post(
      '/v1/auth/jwt',
      {scopes: ['payments:refund'], expires_in: 600},
      {auth: t.creds.secretKey},
    )
    const jwt = minted.body.token as string
    const list = await t.get('/v1/wallets', {auth: jwt})
    expect(list.status).toBe(403)
    expect(list.body.error).toMatchObject({code: 'insufficient_permissions', type: 'permission_error'})
    const create = await t.post('/v1/wallets', {userId: 'usr_x', currency: 'USD'}, {auth: jwt})
    expect(create.status).toBe(403)
    expect(create.body.error.code).toBe('INSUFFICIENT_PERMISSIONS')
  })

  test('never accepts the bare public api key or the api secret as Bearer', async () => {
    for (const credential of [t.creds.apiKey, t.creds.apiSecret]) {
      const res = await t.get('/v1/users/usr_any', {auth: credential})
      expect(res.status).toBe(401)
      expect(res.body.error).toMatchObject({
        code: 'invalid_api_key',
        message: expect.stringContaining('/v1/auth/token'),
      })
    }
  })

  test('without Authorization the answer is 401 missing_authorization', async () => {
    const res = await t.get('/v1/wallets', {auth: null})
    expect(res.status).toBe(401)
    expect(res.body).toEqual({
      error: {code: 'missing_authorization', message: expect.any(String), type: 'authentication_error'},
    })
  })

  test('an Authorization header in another scheme is refused', async () => {
    const res = await t.get('/v1/users/usr_any', {headers: {authorization: `Basic ${t.creds.secretKey}`}})
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe('invalid_api_key')
  })

  test('mints a short-lived scoped JWT from the secret key', async () => {
    const before = Date.now()
    const res = await t.post(
      '/v1/auth/jwt',
      {scopes: ['balance:read'], expires_in: 3600},
      {auth: t.creds.secretKey},
    )
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      expires_at: expect.any(String),
      scopes: ['balance:read'],
    })
    const expiresAt = Date.parse(res.body.expires_at)
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3599_000)
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000)
    expect(claimsOf(res.body.token)).toMatchObject({variant: 'B', env: 'sandbox', scopes: ['balance:read']})
  })

  test('a minted JWT is held to its scopes', async () => {
    const token = (await t.post('/v1/auth/jwt', {scopes: ['balance:read']}, {auth: t.creds.secretKey})).body
      .token
    expect((await t.get('/v1/wallets', {auth: token})).status).toBe(200)
    const denied = await t.post(
      '/v1/users',
      {email: 'c@example.com', first_name: 'C', last_name: 'D'},
      {auth: token},
    )
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({
      error: {
        code: 'insufficient_permissions',
        message: expect.stringContaining('payments:create'),
        type: 'permission_error',
      },
    })
  })

  test('minting needs the secret key itself', async () => {
    const minted = (await t.post('/v1/auth/jwt', {scopes: ['payments:read']}, {auth: t.creds.secretKey})).body
      .token
    for (const credential of [minted, await t.token()]) {
      const res = await t.post('/v1/auth/jwt', {scopes: ['payments:read']}, {auth: credential})
      expect(res.status).toBe(403)
      expect(res.body.error).toMatchObject({code: 'insufficient_permissions', type: 'permission_error'})
    }
    expect((await t.post('/v1/auth/jwt', {scopes: ['payments:read']}, {auth: null})).body.error.code).toBe(
      'missing_authorization',
    )
  })

  test('refuses a mint request outside the accepted lifetime, in the resource shape', async () => {
    const res = await t.post(
      '/v1/auth/jwt',
      {scopes: ['payments:read'], expires_in: 10},
      {auth: t.creds.secretKey},
    )
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({
      error: 'validation_error',
      code: 'VALIDATION_ERROR',
      details: {field: 'expires_in'},
    })
  })
})

describe('failed login guard', () => {
  test('ten failed exchanges of a key from one address answer 429, but never to the right credentials', async () => {
    const t = await start()
    try {
      // Failures with another key count apart: they do not touch this key's budget.
      for (let i = 0; i < 12; i++)
        await t.exchange({api_key: `pk_test_guess${i}`, api_secret: 'sk_test_wrong'})
      for (let i = 0; i < 10; i++) expect((await t.exchange({api_secret: 'sk_test_wrong'})).status).toBe(401)
      const locked = await t.exchange({api_secret: 'sk_test_wrong'})
      expect(locked.status).toBe(429)
      expect(locked.body).toMatchObject({error: {code: 'RATE_LIMITED'}, request_id: expect.any(String)})
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(locked.headers.get('x-ratelimit-limit')).toBe('10')
      const right = await t.exchange()
      expect(right.status, right.text).toBe(200)
      // Success forgives: the next mistake is a plain 401 again.
      expect((await t.exchange({api_secret: 'sk_test_wrong'})).status).toBe(401)
    } finally {
      await t.close()
    }
  })

  test('guessed Bearer credentials are limited per address; valid ones always pass', async () => {
    const t = await start()
    try {
      const token = await t.token()
      const statuses: number[] = []
      for (let i = 0; i < 40; i++) {
        const guess = i % 2 === 0 ? `test_guess_${i}_0123456789abcdef` : `${token.slice(0, -4)}AAAA`
        statuses.push((await t.get('/v1/wallets', {auth: guess})).status)
      }
      expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true)
      expect(statuses.slice(30).every((s) => s === 429)).toBe(true)
      const limited = await t.get('/v1/users/usr_any', {auth: 'test_guess_once_more_0123456789'})
      expect(limited.status).toBe(429)
      expect(limited.body.error.code).toBe('RATE_LIMITED')
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect((await t.get('/v1/wallets', {auth: t.creds.secretKey})).status).toBe(200)
      expect((await t.get('/v1/wallets', {auth: token})).status).toBe(200)
      // A missing header is no guess: still the plain 401.
      expect((await t.get('/v1/wallets', {auth: null})).status).toBe(401)
    } finally {
      await t.close()
    }
  })

  test('is off with rateLimit off', async () => {
    const t = await start({rateLimit: 'off'})
    try {
      for (let i = 0; i < 11; i++) await t.exchange({api_secret: 'sk_test_wrong'})
      expect((await t.exchange()).status).toBe(200)
    } finally {
      await t.close()
    }
  })
})

describe('JWT validation against forged and altered tokens', () => {
  let t: TestSandbox
  const files = tempDir()
  let key: Buffer
  let accessClaims: Record<string, unknown>
  let mintedClaims: Record<string, unknown>

  beforeAll(async () => {
    // Hundreds of forged tokens in a row: the Bearer guard (tested above) would answer 429.
    t = await start({data: files.file, rateLimit: 'off'})
    key = Buffer.from(
      String(query(files.file, "SELECT value FROM meta WHERE key = 'jwt_signing_key'")[0]?.value),
      'base64',
    )
    accessClaims = claimsOf(await t.token())
    mintedClaims = claimsOf(
      (await t.post('/v1/auth/jwt', {scopes: ['balance:read']}, {auth: t.creds.secretKey})).body.token,
    )
  })
  afterAll(async () => {
    await t.close()
    files.cleanup()
  })

  /** A refusal in the shape of the variant the token claims: never a success, never a 5xx. */
  const expectRefused = async (token: string, variant: 'A' | 'B', what: string) => {
    const res = await t.get('/v1/users/usr_none', {auth: token})
    expect(res.status, `${what}: ${res.text}`).toBe(401)
    if (variant === 'A') expect(res.body.error.code, what).toMatch(/^TOKEN_(INVALID|EXPIRED)$/)
    else expect(res.body.error.code, what).toMatch(/^(invalid_api_key|expired_token|TOKEN_INVALID)$/)
  }
  const rsa = generateKeyPairSync('rsa', {modulusLength: 2048})
  const ec = generateKeyPairSync('ec', {namedCurve: 'P-256'})
  const signed = (alg: string, header: Record<string, unknown>, claims: Record<string, unknown>) => {
    const input = `${b64(header)}.${b64(claims)}`
    const data = Buffer.from(input)
    const signature: Record<string, () => Buffer> = {
      HS256: () => createHmac('sha256', key).update(input).digest(),
      HS384: () => createHmac('sha384', key).update(input).digest(),
      HS512: () => createHmac('sha512', key).update(input).digest(),
      RS256: () => cryptoSign('sha256', data, rsa.privateKey),
      PS256: () =>
        cryptoSign('sha256', data, {key: rsa.privateKey, padding: cryptoConstants.RSA_PKCS1_PSS_PADDING}),
      ES256: () => cryptoSign('sha256', data, {key: ec.privateKey, dsaEncoding: 'ieee-p1363'}),
      'HS256-other-key': () => createHmac('sha256', randomBytes(32)).update(input).digest(),
      'HS256-public-key': () =>
        createHmac('sha256', rsa.publicKey.export({type: 'spki', format: 'pem'}))
          .update(input)
          .digest(),
    }
    return `${input}.${signature[alg]!().toString('base64url')}`
  }

  test('alg none in any spelling, with or without a signature, is refused for both variants', async () => {
    for (const [claims, variant] of [
      [accessClaims, 'A'],
      [mintedClaims, 'B'],
    ] as const) {
      for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
        const unsigned = `${b64({alg, typ: 'JWT'})}.${b64(claims)}`
        await expectRefused(`${unsigned}.`, variant, `alg ${alg}`)
        await expectRefused(unsigned, variant, `alg ${alg}, two segments`)
        await expectRefused(
          `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`,
          variant,
          `alg ${alg} with an HMAC`,
        )
      }
    }
  })

  test('every other algorithm is refused, even signed with the sandbox key or posing as HS256', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['HS384', {alg: 'HS384', typ: 'JWT'}],
      ['HS512', {alg: 'HS512', typ: 'JWT'}],
      ['RS256', {alg: 'RS256', typ: 'JWT'}],
      ['PS256', {alg: 'PS256', typ: 'JWT'}],
      ['ES256', {alg: 'ES256', typ: 'JWT'}],
      // An RS256 header over an HMAC keyed with a public key (the classic confusion attack).
      ['HS256-public-key', {alg: 'RS256', typ: 'JWT'}],
      // The right algorithm with someone else's key, or with no alg at all.
      ['HS256-other-key', {alg: 'HS256', typ: 'JWT'}],
      ['HS256', {typ: 'JWT'}],
      ['HS256', {alg: 'HS256', typ: 'JWT', crit: ['exp']}],
    ]
    for (const [alg, header] of cases) {
      await expectRefused(signed(alg, header, accessClaims), 'A', `${alg} ${JSON.stringify(header)}`)
      await expectRefused(signed(alg, header, mintedClaims), 'B', `${alg} ${JSON.stringify(header)} (minted)`)
    }
    // The control: the same claims, HS256 with the sandbox key, are accepted.
    const ok = await t.get('/v1/wallets', {auth: signed('HS256', {alg: 'HS256', typ: 'JWT'}, accessClaims)})
    expect(ok.status).toBe(200)
  })

  test('a well-signed token with missing or mistyped claims is refused', async () => {
    const without = (k: string) =>
      Object.fromEntries(Object.entries(accessClaims).filter(([name]) => name !== k))
    const variants: [string, Record<string, unknown>][] = [
      ['no exp', without('exp')],
      ['no jti', without('jti')],
      ['no partner_id', without('partner_id')],
      ['exp as text', {...accessClaims, exp: String(accessClaims.exp)}],
      ['scopes as text', {...accessClaims, scopes: 'users:read'}],
      ['variant C', {...accessClaims, variant: 'C'}],
      ['another partner', {...accessClaims, partner_id: 'partner_someone_else', sub: 'partner_someone_else'}],
      ['not yet valid', {...accessClaims, nbf: Math.floor(Date.now() / 1000) + 3600}],
      ['expired a second ago', {...accessClaims, exp: Math.floor(Date.now() / 1000) - 1}],
    ]
    for (const [what, claims] of variants) {
      const res = await t.get('/v1/wallets', {auth: signed('HS256', {alg: 'HS256', typ: 'JWT'}, claims)})
      expect(res.status, `${what}: ${res.text}`).toBe(401)
    }
  })

  test('any change to any character of a token is refused', async () => {
    const token: string = await t.token()
    expect((await t.get('/v1/wallets', {auth: token})).status).toBe(200)
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.constantFrom(...alphabet.split('')),
        fc.constantFrom('replace', 'insert', 'delete'),
        async (at, ch, op) => {
          const i = at % token.length
          const altered =
            op === 'replace'
              ? token.slice(0, i) + ch + token.slice(i + 1)
              : op === 'insert'
                ? token.slice(0, i) + ch + token.slice(i)
                : token.slice(0, i) + token.slice(i + 1)
          // Base64url's last character carries spare bits: a change there may decode to the very same
          // bytes, which is the same token, not a forgery.
          const decoded = (s: string) =>
            s
              .split('.')
              .map((p) => Buffer.from(p, 'base64url').toString('hex'))
              .join('.')
          fc.pre(decoded(altered) !== decoded(token))
          const res = await t.get('/v1/wallets', {auth: altered})
          expect(res.status, `${op} ${JSON.stringify(ch)} at ${i}: ${res.text}`).toBe(401)
        },
      ),
      {numRuns: 300},
    )
  })

  test('a token revoked after use is refused at once, and still after a restart on the same data file', async () => {
    const token = (await t.exchange()).body.access_token as string
    // Used first, so that the sandbox has already verified (and remembered) it.
    expect((await t.get('/v1/wallets', {auth: token})).status).toBe(200)
    expect((await t.get('/v1/wallets', {auth: token})).status).toBe(200)
    expect((await t.post('/v1/auth/revoke', undefined, {auth: token})).status).toBe(200)
    const refused = await t.get('/v1/wallets', {auth: token})
    expect(refused.status).toBe(401)
    expect(refused.body.error.message).toMatch(/revoked/)
    const other = (await t.exchange()).body.access_token as string
    await t.close()
    t = await start({data: files.file, rateLimit: 'off'})
    expect((await t.get('/v1/wallets', {auth: token})).status).toBe(401)
    expect((await t.get('/v1/wallets', {auth: other})).status).toBe(200)
  })
})

describe('token families, credential versions and revoking all', () => {
  const refresh = async (t: TestSandbox, token: string) => {
    const res = await t.post('/v1/auth/refresh', undefined, {auth: token})
    expect(res.status, res.text).toBe(200)
    return res.body.access_token as string
  }
  const works = async (t: TestSandbox, token: string) => (await t.get('/v1/wallets', {auth: token})).status

  test('revoking a token revokes the tokens refreshed from it and the one it was refreshed from', async () => {
    const t = await start({rateLimit: 'off'})
    try {
      for (const revoked of ['parent', 'child'] as const) {
        const parent = (await t.exchange()).body.access_token as string
        const child = await refresh(t, parent)
        const grandchild = await refresh(t, child)
        const unrelated = (await t.exchange()).body.access_token as string
        const target = revoked === 'parent' ? parent : child
        expect((await t.post('/v1/auth/revoke', undefined, {auth: target})).status).toBe(200)
        for (const token of [parent, child, grandchild]) {
          const res = await t.get('/v1/wallets', {auth: token})
          expect(res.status, revoked).toBe(401)
          expect(res.body.error).toMatchObject({code: 'TOKEN_INVALID', message: 'Token has been revoked'})
          expect((await t.post('/v1/auth/refresh', undefined, {auth: token})).status).toBe(401)
        }
        expect(await works(t, unrelated)).toBe(200)
      }
    } finally {
      await t.close()
    }
  })

  test('a restart with a new API secret or secret key ends every earlier token, refreshable or minted', async () => {
    const files = tempDir()
    try {
      let t = await start({data: files.file, credentials: {partnerId: 'partner_rotating'}})
      const access = await t.token()
      const minted = (await t.post('/v1/auth/jwt', {scopes: ['balance:read']}, {auth: t.creds.secretKey}))
        .body.token as string
      await t.close()
      // The same credentials again: the tokens live on.
      t = await start({data: files.file, credentials: {partnerId: 'partner_rotating'}})
      expect(await works(t, access)).toBe(200)
      expect(await works(t, minted)).toBe(200)
      await t.close()
      for (const rotated of [
        {apiSecret: 'sk_test_rotated_secret_0123456789'},
        {secretKey: 'test_rotated_key_0123456789abcdef'},
      ]) {
        const before = await start({data: files.file, credentials: {partnerId: 'partner_rotating'}})
        const token = await before.token()
        await before.close()
        t = await start({data: files.file, credentials: {partnerId: 'partner_rotating', ...rotated}})
        try {
          for (const old of [access, minted, token]) {
            const res = await t.get('/v1/wallets', {auth: old})
            expect(res.status, JSON.stringify(rotated)).toBe(401)
            expect(res.text).toMatch(/credentials changed/)
          }
          expect((await t.post('/v1/auth/refresh', undefined, {auth: token})).status).toBe(401)
          expect(await works(t, await t.token())).toBe(200)
        } finally {
          await t.close()
        }
      }
    } finally {
      files.cleanup()
    }
  })

  test('POST /v1/auth/revoke-all ends every token of the partner; new ones work', async () => {
    const files = tempDir()
    try {
      let t = await start({data: files.file, rateLimit: 'off'})
      const access = await t.token()
      const refreshed = await refresh(t, access)
      const minted = (await t.post('/v1/auth/jwt', {scopes: ['balance:read']}, {auth: t.creds.secretKey}))
        .body.token as string
      const narrowed = (await t.exchange({scopes: ['users:read']})).body.access_token as string
      expect((await t.post('/v1/auth/revoke-all', undefined, {auth: narrowed})).status).toBe(403)
      expect((await t.post('/v1/auth/revoke-all', undefined, {auth: minted})).status).toBe(403)
      const res = await t.post('/v1/auth/revoke-all', undefined, {auth: t.creds.secretKey})
      expect(res.status, res.text).toBe(200)
      expect(res.body).toEqual({revoked: true})
      for (const token of [access, refreshed, minted, narrowed]) expect(await works(t, token)).toBe(401)
      expect(await works(t, t.creds.secretKey)).toBe(200)
      const fresh = (await t.exchange()).body.access_token as string
      expect(await works(t, fresh)).toBe(200)
      // An access token with sandbox:admin may revoke all too, itself included; it lasts a restart.
      expect((await t.post('/v1/auth/revoke-all', undefined, {auth: fresh})).status).toBe(200)
      expect(await works(t, fresh)).toBe(401)
      await t.close()
      t = await start({data: files.file})
      expect(await works(t, access)).toBe(401)
      expect(await works(t, fresh)).toBe(401)
      await t.close()
    } finally {
      files.cleanup()
    }
  })
})
