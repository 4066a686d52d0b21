import {mkdirSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi} from 'vitest'
import {connect, type PayctlClient, PayctlError, type RetryInfo, sandboxClient} from '../../src/core/index.js'
import {readProfileFile, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * `connect()` with credentials given directly: a test suite's client, which reads and writes no
 * profile file and no PAYCTL_* variable, with the CLI's typed calls, retries and idempotency keys.
 */

let sandbox: LocalSandbox
beforeAll(async () => {
  sandbox = await startLocalSandbox()
})
afterAll(() => sandbox.stop())

// A home and config dir of their own, holding a profile file that is not JSON, and PAYCTL_*
// variables that point elsewhere: a client that read either would fail or go astray.
let home: ReturnType<typeof tempConfigDir>
const config = () => join(home.dir, 'config')
beforeEach(() => {
  home = tempConfigDir()
  mkdirSync(config(), {mode: 0o700})
  writeFileSync(join(config(), 'profiles.json'), '{not json', {mode: 0o600})
  vi.stubEnv('HOME', home.dir)
  vi.stubEnv('PAYCTL_CONFIG_DIR', config())
  vi.stubEnv('PAYCTL_BASE_URL', 'http://127.0.0.1:9')
  vi.stubEnv('PAYCTL_SECRET_KEY', 'test_not_this_one_0000000000')
  vi.stubEnv('PAYCTL_PROFILE', 'nobody')
})
afterEach(() => {
  vi.unstubAllEnvs()
  home.cleanup()
})

/** What the home holds, every file under it: only what the test put there. */
const filesOfHome = () => readdirSync(home.dir, {recursive: true, encoding: 'utf8'}).sort()

async function createUser(client: PayctlClient, email: string, idempotencyKey?: string) {
  return client.call('createUser', {
    body: {email, first_name: 'Ada', last_name: 'Lovelace'},
    ...(idempotencyKey ? {idempotencyKey} : {}),
  })
}

describe('connect() with credentials', () => {
  it('Variant A: exchanges the partner credentials for a token kept in memory, and writes no file', async () => {
    const {apiKey, apiSecret, partnerId} = sandbox.credentials
    const client = connect({baseUrl: sandbox.url, apiKey, apiSecret, partnerId})
    expect(client.profile).toMatchObject({environment: 'local', kind: 'local', baseUrl: sandbox.url})
    const user = await createUser(client, 'ada.a@example.test')
    expect(user.id).toMatch(/^usr_/)
    const token = client.tokens.cached()
    expect(token?.partnerId).toBe(partnerId)
    // The same token serves the next call: no second exchange.
    expect((await client.call('getUser', {params: {id: user.id}})).email).toBe('ada.a@example.test')
    expect(client.tokens.cached()?.accessToken).toBe(token?.accessToken)
    expect(filesOfHome()).toEqual(['config', 'config/profiles.json'])
  })

  it('Variant B: sends the secret key, and writes no file', async () => {
    const client = connect({baseUrl: `${sandbox.url}/v1/`, secretKey: sandbox.credentials.secretKey})
    expect(client.profile.baseUrl).toBe(sandbox.url)
    const user = await createUser(client, 'ada.b@example.test')
    expect((await client.call('getUser', {params: {id: user.id}})).id).toBe(user.id)
    expect(client.tokens.cached()).toBeUndefined()
    expect(filesOfHome()).toEqual(['config', 'config/profiles.json'])
  })

  it('retries what failed with the same idempotency key: a dropped answer creates one record', async () => {
    const retries: RetryInfo[] = []
    const {apiKey, apiSecret, partnerId} = sandbox.credentials
    const client = connect({
      baseUrl: sandbox.url,
      apiKey,
      apiSecret,
      partnerId,
      wait: async () => undefined,
      onRetry: (info) => retries.push(info),
    })
    const control = sandboxClient({url: sandbox.url, credentials: sandbox.credentials})
    const {faults} = control
    // The change is committed, then the connection cut before the answer; then two 503s.
    await faults.add({route: 'POST /v1/users', drop: 'after', times: 1})
    const user = await createUser(client, 'ada.retried@example.test')
    await faults.add({route: 'POST /v1/users', status: 503, retryAfterSeconds: 0, times: 2})
    const again = await client.callWithMeta('createUser', {
      body: {email: 'ada.twice@example.test', first_name: 'Ada', last_name: 'L'},
      idempotencyKey: 'key-twice-1',
    })
    expect(retries.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^(ECONNRESET|UND_ERR_SOCKET)$/),
      'HTTP 503',
      'HTTP 503',
    ])
    // Once more with the key: the first answer, replayed.
    const replay = await client.callWithMeta('createUser', {
      body: {email: 'ada.twice@example.test', first_name: 'Ada', last_name: 'L'},
      idempotencyKey: 'key-twice-1',
    })
    expect(replay).toMatchObject({replayed: true, data: {id: again.data.id}})
    const users = await client.call('listUsers', {query: {email: 'ada.retried@example.test'}})
    expect(users.users.map((u) => u.id)).toEqual([user.id])
    await faults.clear()
    await control.close()
  })

  it('refuses credentials that are incomplete or of both variants, and a profile beside them', () => {
    const {apiKey, apiSecret, partnerId, secretKey} = sandbox.credentials
    const refusal = (opts: object) => {
      try {
        connect(opts as Parameters<typeof connect>[0])
      } catch (err) {
        return err instanceof PayctlError ? [err.code, err.message] : err
      }
      return 'connected'
    }
    expect(refusal({baseUrl: sandbox.url, apiKey, partnerId})).toEqual([
      'CREDENTIALS_INCOMPLETE',
      'partner credentials need an apiKey, an apiSecret and a partnerId; apiSecret is missing (or give a secretKey)',
    ])
    expect(refusal({baseUrl: sandbox.url, apiKey, apiSecret, partnerId, secretKey})).toEqual([
      'INVALID_OPTIONS',
      expect.stringContaining('not both'),
    ])
    expect(refusal({profile: 'local', secretKey})).toEqual([
      'INVALID_OPTIONS',
      'connect() takes a profile or credentials, not both',
    ])
    expect(refusal({secretKey})).toEqual([
      'INVALID_OPTIONS',
      'connect() with credentials needs the baseUrl they are for',
    ])
  })

  it('names the environment as for a CI job with only credentials, so the safety checks hold', async () => {
    const environment = (baseUrl: string, secretKey: string) =>
      connect({baseUrl, secretKey}).profile.environment
    expect(environment(sandbox.url, 'test_abc')).toBe('local')
    expect(environment('https://api.example.test', 'test_abc')).toBe('sandbox')
    expect(environment('https://api.example.test', 'live_abc')).toBe('production')
    // A live key bound for the local sandbox is refused before anything is sent.
    const live = connect({baseUrl: sandbox.url, secretKey: 'live_abc'})
    await expect(live.call('getUser', {params: {id: 'usr_x'}})).rejects.toMatchObject({
      code: 'LIVE_KEY_OUTSIDE_PRODUCTION',
    })
  })

  it('keeps the profile form: the profile file, its token cached there', async () => {
    vi.unstubAllEnvs()
    const client = connect({configDir: sandbox.configDir, profile: 'local'})
    await createUser(client, 'ada.profile@example.test')
    const file = readProfileFile(sandbox.configDir) as {
      profiles: {local: {token?: {accessToken: string}}}
    }
    expect(file.profiles.local.token?.accessToken).toBe(client.tokens.cached()?.accessToken)
  })
})
