import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {payctl} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

const KEY = 'test_my-secret-key-value'

describe('credentials stay out of the audit log and --debug', () => {
  let sandbox: LocalSandbox
  beforeAll(async () => {
    sandbox = await startLocalSandbox({credentials: {secretKey: KEY}})
  })
  afterAll(() => sandbox.stop())

  it('redacts -H credential headers and keys with - or _ in audit.log and --debug output', async () => {
    const r = await payctl(
      [
        'api',
        'POST',
        '/users',
        '-d',
        JSON.stringify({email: 'h@example.test', first_name: 'H', last_name: 'Eaders'}),
        '-H',
        `Authorization: Bearer ${KEY}`,
        '-H',
        'X-Api-Key: opaque-credential-123',
        '--header=Cookie: sid=cookie-value-456',
        '--debug',
      ],
      {configDir: sandbox.configDir},
    )
    expect(r.exitCode, r.stderr).toBe(0)
    const audit = readFileSync(join(sandbox.configDir, 'audit.log'), 'utf8')
    expect(audit).toContain('payctl api POST /users')
    for (const secret of ['my-secret-key-value', 'opaque-credential-123', 'cookie-value-456']) {
      expect(audit).not.toContain(secret)
      expect(r.stdout + r.stderr).not.toContain(secret)
    }
  })
})
