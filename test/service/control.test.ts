import {describe, expect, test} from 'vitest'
import {SandboxHealthSchema} from '../../src/contract/control.js'
import {startSandbox} from '../../src/sandbox/index.js'
import {start, tempDir} from './helpers.js'

describe('sandbox control routes', () => {
  test('health answers without credentials and reports the settings', async () => {
    const t = await start({responseShape: 'direct', tokenTtlSeconds: 3600, rateLimit: 'off'})
    try {
      const res = await t.get('/_sandbox/health', {auth: null})
      expect(res.status).toBe(200)
      expect(SandboxHealthSchema.parse(res.body)).toMatchObject({
        status: 'ok',
        responseShape: 'direct',
        rateLimit: 'off',
        tokenTtl: 3600,
      })
    } finally {
      await t.close()
    }
  })

  test('reset, clock and trigger take the secret key or a sandbox:admin token, never a narrowed token or minted JWT', async () => {
    const t = await start({rateLimit: 'off'})
    try {
      const minted = await t.post('/v1/auth/jwt', {scopes: ['balance:read']}, {auth: t.creds.secretKey})
      const narrowed = (await t.exchange({scopes: ['users:read']})).body.access_token as string
      const admin = (await t.exchange({scopes: ['sandbox:admin']})).body.access_token as string
      const calls = [
        ['/_sandbox/reset', undefined],
        ['/_sandbox/clock/advance', {seconds: 1}],
        ['/_sandbox/trigger', {event: 'wallet.created'}],
      ] as const
      for (const [path, body] of calls) {
        const byJwt = await t.post(path, body, {auth: minted.body.token})
        expect(byJwt.status, path).toBe(403)
        expect(byJwt.body.error).toMatchObject({code: 'insufficient_permissions', type: 'permission_error'})
        const byNarrowed = await t.post(path, body, {auth: narrowed})
        expect(byNarrowed.status, path).toBe(403)
        expect(byNarrowed.body.error).toMatchObject({
          code: 'INSUFFICIENT_SCOPE',
          details: {required_scope: 'sandbox:admin'},
        })
        for (const auth of [admin, t.creds.secretKey, await t.token()]) {
          const ok = await t.post(path, body, {auth})
          expect(ok.status, `${path}: ${ok.text}`).toBeLessThan(300)
        }
      }
    } finally {
      await t.close()
    }
  })

  test('moves the clock at most a century in all, so that every date it gives is one a data file keeps', async () => {
    const files = tempDir()
    const t = await start({rateLimit: 'off', data: files.file})
    try {
      const year = {seconds: 365 * 86_400}
      for (let i = 0; i < 100; i++) expect((await t.post('/_sandbox/clock/advance', year)).status).toBe(200)
      const refused = await t.post('/_sandbox/clock/advance', {seconds: 1})
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({
        error: 'validation_error',
        code: 'VALIDATION_ERROR',
        details: {field: 'seconds'},
      })
    } finally {
      await t.close()
    }
    // The file it leaves opens again.
    const again = await start({rateLimit: 'off', data: files.file})
    expect((await again.get('/_sandbox/health', {auth: null})).status).toBe(200)
    await again.close()
    files.cleanup()
  })

  test("reset deletes the caller's records but keeps its credentials and tokens", async () => {
    const files = tempDir()
    try {
      const other = await start({data: files.file, credentials: {partnerId: 'partner_other'}})
      const kept = await other.user()
      await other.close()
      const t = await start({data: files.file, credentials: {partnerId: 'partner_main'}})
      try {
        const userId = await t.user()
        await t.post('/v1/wallets', {userId, currency: 'USD'}, {headers: {'idempotency-key': 'before-reset'}})
        const res = await t.post('/_sandbox/reset')
        expect(res.status).toBe(200)
        expect(res.body).toEqual({reset: true})
        expect((await t.get(`/v1/users/${userId}`)).status).toBe(404)
        expect((await t.get('/v1/wallets')).body.data.wallets).toEqual([])
        expect((await t.exchange()).status).toBe(200)
        // The idempotency key is free again: the same request now creates afresh (and fails on the user).
        const again = await t.post(
          '/v1/wallets',
          {userId, currency: 'USD'},
          {headers: {'idempotency-key': 'before-reset'}},
        )
        expect(again.body.error.code).toBe('INVALID_USER_ID')
        expect((await t.get(`/v1/users/${kept}`, {auth: 'test_nope'})).status).toBe(401)
      } finally {
        await t.close()
      }
      const back = await start({data: files.file, credentials: {partnerId: 'partner_other'}})
      try {
        expect((await back.get(`/v1/users/${kept}`)).status).toBe(200)
      } finally {
        await back.close()
      }
    } finally {
      files.cleanup()
    }
  })

  test('reset needs credentials', async () => {
    const t = await start()
    try {
      const res = await t.post('/_sandbox/reset', undefined, {auth: null})
      expect(res.status).toBe(401)
      expect(res.body.error.code).toBe('missing_authorization')
    } finally {
      await t.close()
    }
  })
})

describe('credentials', () => {
  test('generates credentials in the documented formats', async () => {
    const t = await start()
    try {
      expect(t.creds.apiKey).toMatch(/^pk_test_[0-9a-f]+$/)
      expect(t.creds.apiSecret).toMatch(/^sk_test_[0-9a-f]+$/)
      expect(t.creds.partnerId).toMatch(/^partner_[0-9a-f]+$/)
      expect(t.creds.secretKey).toMatch(/^test_[0-9a-f]+$/)
      expect(t.sb.url).toBe(`http://127.0.0.1:${t.sb.port}`)
    } finally {
      await t.close()
    }
  })

  test('uses credentials fixed by the caller, and keeps them in the data file', async () => {
    const files = tempDir()
    const fixed = {
      apiKey: 'pk_test_ci',
      apiSecret: 'sk_test_ci_secret_0123456789',
      partnerId: 'partner_ci',
      secretKey: 'test_ci_key_0123456789ab',
    }
    try {
      const t = await start({data: files.file, credentials: fixed})
      expect(t.creds).toEqual(fixed)
      expect((await t.exchange()).status).toBe(200)
      expect((await t.get('/v1/wallets', {auth: 'test_ci_key_0123456789ab'})).status).toBe(200)
      await t.close()
      const again = await start({data: files.file, credentials: {secretKey: 'test_rotated_0123456789ab'}})
      try {
        expect(again.creds).toEqual({...fixed, secretKey: 'test_rotated_0123456789ab'})
        expect((await again.get('/v1/wallets', {auth: 'test_ci_key_0123456789ab'})).status).toBe(401)
      } finally {
        await again.close()
      }
    } finally {
      files.cleanup()
    }
  })

  test('refuses malformed credentials and bad options before listening', async () => {
    await expect(startSandbox({port: 0, credentials: {secretKey: 'live_abc'}})).rejects.toThrow(/secretKey/)
    await expect(startSandbox({port: 0, credentials: {apiKey: 'nope'}})).rejects.toThrow(/pk_test_/)
    // Chosen secrets need 16 characters after their prefix: `test_a` would be guessed in no time.
    await expect(startSandbox({port: 0, credentials: {secretKey: 'test_a'}})).rejects.toThrow(/16 to 128/)
    await expect(
      startSandbox({port: 0, credentials: {apiSecret: 'sk_test_fifteen_chars__'}}),
    ).rejects.toThrow(/sk_test_ followed by 16/)
    await expect(startSandbox({port: -1})).rejects.toThrow(/port/)
  })

  test('logs one line per request, without secrets', async () => {
    const lines: string[] = []
    const t = await start({log: (line) => lines.push(line)})
    try {
      const token = await t.token()
      await t.get('/v1/wallets?userId=usr_x')
      await t.get('/v1/wallets', {auth: t.creds.secretKey})
      expect(lines).toHaveLength(3)
      expect(lines[1]).toMatch(/^GET \/v1\/wallets 200 \d+\.\dms req_[0-9a-f]{24}$/)
      const all = lines.join('\n')
      for (const secret of [token, t.creds.apiSecret, t.creds.secretKey]) expect(all).not.toContain(secret)
    } finally {
      await t.close()
    }
  })
})
