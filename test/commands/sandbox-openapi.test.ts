import {afterAll, describe, expect, it} from 'vitest'
import {cliFor, tempConfigDir} from '../helpers/cli.js'

describe('sandbox openapi', () => {
  const temp = tempConfigDir()
  afterAll(() => temp.cleanup())

  it('prints an OpenAPI 3.1 document with every path of the contract', async () => {
    const r = await cliFor(temp.dir)('sandbox', 'openapi')
    expect(r.exitCode).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.openapi).toMatch(/^3\.1/)
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/wallets', '/v1/wallets/{id}', '/v1/transactions', '/v1/auth/token']),
    )
  })
})
