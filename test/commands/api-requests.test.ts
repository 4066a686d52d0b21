import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

let sandbox: LocalSandbox
let cli: Cli

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox)
})
afterAll(async () => {
  await sandbox.stop()
})

describe('payctl api', () => {
  it('sends any request with the profile’s auth and follows cursors with --paginate', async () => {
    const user = (
      await cli('api', 'POST', '/users', '-d', '{"email":"p@example.test","first_name":"P","last_name":"Q"}')
    ).stdout
    const userId = JSON.parse(user).data.id as string
    for (const currency of ['USD', 'EUR', 'GBP', 'JPY', 'CHF']) {
      const r = await cli('api', 'POST', '/wallets', '-d', JSON.stringify({userId, currency}))
      expect(r.exitCode, r.stderr).toBe(0)
    }
    const pages = await cli('api', 'GET', `/wallets?userId=${userId}&limit=2`, '--paginate')
    expect(pages.exitCode, pages.stderr).toBe(0)
    const bodies = pages.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(bodies).toHaveLength(3)
    expect(bodies.flatMap((b) => b.data.wallets.map((w: {currency: string}) => w.currency))).toEqual([
      'USD',
      'EUR',
      'GBP',
      'JPY',
      'CHF',
    ])
  })

  it('prints an error body and exits non-zero for a non-2xx answer', async () => {
    const r = await cli('api', 'GET', '/wallets/wal_missing')
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(r.stdout).error.code).toBe('NOT_FOUND')
    expect(r.stderr).toContain('NOT_FOUND')
    // With --json, stdout is only the error, in the form every command gives it.
    const json = await cli('api', 'GET', '/wallets/wal_missing', '--json')
    expect(json.exitCode).toBe(1)
    expect(JSON.parse(json.stdout)).toMatchObject({error: {code: 'NOT_FOUND', exitCode: 1}})
    const ok = await cli('api', 'GET', '/wallets', '--json')
    expect(ok.exitCode, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout)).toBeTypeOf('object')
  })

  it('refuses a body that is not JSON before sending', async () => {
    const r = await cli('api', 'POST', '/users', '-d', '{oops')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('--data is not valid JSON')
  })
})
