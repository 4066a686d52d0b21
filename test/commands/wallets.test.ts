import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

for (const shape of ['envelope', 'direct'] as const) {
  describe(`users and wallets against a sandbox serving ${shape} responses`, () => {
    let sandbox: LocalSandbox
    let cli: Cli
    let userId: string

    beforeAll(async () => {
      sandbox = await startLocalSandbox({responseShape: shape})
      cli = cliFor(sandbox)
      const r = await cli(
        'users',
        'create',
        '--email',
        'ada@example.test',
        '--first-name',
        'Ada',
        '--last-name',
        'Lovelace',
        '--external-id',
        'crm-1',
        '--json',
      )
      expect(r.exitCode, r.stderr).toBe(0)
      userId = r.json<{id: string}>().id
    })
    afterAll(async () => {
      await sandbox.stop()
    })

    it('answers in JSON with --json even after a flag whose value is --', async () => {
      const r = await cli(
        'users',
        'create',
        '--email',
        'dash@example.test',
        '--first-name',
        '--',
        '--last-name',
        'D',
        '--json',
      )
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.json()).toMatchObject({first_name: '--', last_name: 'D'})
    })

    it('creates a user and reads it back', async () => {
      expect(userId).toMatch(/^usr_/)
      const r = await cli('users', 'get', userId, '--json')
      expect(r.exitCode).toBe(0)
      expect(r.json()).toMatchObject({
        id: userId,
        email: 'ada@example.test',
        first_name: 'Ada',
        external_id: 'crm-1',
        partner_id: sandbox.credentials.partnerId,
      })
    })

    it('creates an active wallet with an exact initial balance, and prints only its id when piped', async () => {
      const r = await cli(
        'wallets',
        'create',
        '--user',
        userId,
        '--currency',
        'usd',
        '--label',
        'Main',
        '--initial-balance',
        '12.34USD',
      )
      expect(r.exitCode, r.stderr).toBe(0)
      const id = r.stdout.trim()
      expect(id).toMatch(/^wal_\w+$/)
      const got = await cli('wallets', 'get', id, '--json')
      expect(got.json()).toMatchObject({
        id,
        userId,
        currency: 'USD',
        status: 'active',
        label: 'Main',
        balance: {available: 1234, pending: 0, reserved: 0, total: 1234, currency: 'USD'},
      })
      const human = await cli('wallets', 'get', id)
      expect(human.stdout).toMatch(/total\s+12\.34 USD/)
    })

    it('refuses a second wallet in the same currency with WALLET_EXISTS and its details', async () => {
      const first = await cli('wallets', 'create', '--user', userId, '--currency', 'EUR', '--json')
      expect(first.exitCode, first.stderr).toBe(0)
      const existing = first.json<{id: string}>().id
      const again = await cli('wallets', 'create', '--user', userId, '--currency', 'EUR', '--json')
      expect(again.exitCode).toBe(1)
      const err = again.json<{error: {code: string; status: number; details: Record<string, string>}}>().error
      expect(err.code).toBe('WALLET_EXISTS')
      expect(err.status).toBe(409)
      expect(err.details).toEqual({existingWalletId: existing, userId, currency: 'EUR'})
      const human = await cli('wallets', 'create', '--user', userId, '--currency', 'EUR')
      expect(human.stderr).toContain('WALLET_EXISTS: ')
      expect(human.stderr).toContain(`Try: payctl wallets get ${existing}`)
      expect(human.stderr).toMatch(/request id: req_/)
    })

    it('rejects an unsupported currency with INVALID_CURRENCY listing the supported ones', async () => {
      const r = await cli('wallets', 'create', '--user', userId, '--currency', 'XYZ', '--json')
      expect(r.exitCode).toBe(2) // a usage error, refused before sending
      const err = r.json<{
        error: {code: string; details: {flag: string; value: string; supported: string[]}}
      }>().error
      expect(err.code).toBe('INVALID_CURRENCY')
      expect(err.details.flag).toBe('--currency')
      expect(err.details.value).toBe('XYZ')
      expect(err.details.supported).toContain('NEAR')
    })

    it('rejects an unknown user with INVALID_USER_ID', async () => {
      const r = await cli('wallets', 'create', '--user', 'usr_doesnotexist', '--currency', 'GBP')
      expect(r.exitCode).toBe(1)
      expect(r.stderr).toContain('INVALID_USER_ID')
    })

    it('rejects a label over 50 characters', async () => {
      const r = await cli(
        'wallets',
        'create',
        '--user',
        userId,
        '--currency',
        'CAD',
        '--label',
        'x'.repeat(51),
      )
      expect(r.exitCode).toBe(1)
      expect(r.stderr).toContain('label')
    })

    it('answers 404 for an unknown wallet with exit 1', async () => {
      const r = await cli('wallets', 'get', 'wal_nope', '--json')
      expect(r.exitCode).toBe(1)
      expect(r.json<{error: {status: number}}>().error.status).toBe(404)
      // An empty id is refused before sending: /wallets/ would be the list of wallets.
      const empty = await cli('wallets', 'get', '', '--json')
      expect(empty.exitCode).toBe(2)
      expect(empty.json()).toMatchObject({error: {code: 'MISSING_ARGUMENT', details: {name: 'id'}}})
    })

    it('lists a user’s wallets and filters by currency', async () => {
      const all = await cli('wallets', 'list', '--user', userId, '--json')
      expect(all.exitCode).toBe(0)
      const currencies = all
        .json<{wallets: {currency: string}[]}>()
        .wallets.map((w) => w.currency)
        .sort()
      expect(currencies).toEqual(['EUR', 'USD'])
      const usd = await cli('wallets', 'list', '--user', userId, '--currency', 'USD', '--json')
      expect(usd.json<{wallets: unknown[]}>().wallets).toHaveLength(1)
      const table = await cli('wallets', 'list', '--user', userId)
      expect(table.stdout).toContain('CURRENCY')
      expect(table.stdout).toContain('12.34 USD')
    })

    it('fails naming the flag instead of prompting when stdin is not a TTY', async () => {
      const r = await cli('wallets', 'create', '--currency', 'USD')
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toContain('--user')
    })
  })
}
