import {afterAll, describe, expect, it} from 'vitest'
import {cliFor, tempConfigDir} from '../helpers/cli.js'
import {startLocalSandbox} from '../helpers/local-sandbox.js'

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

  it("names the local profile's sandbox as its server, as that sandbox does at /openapi.json", async () => {
    expect(JSON.parse((await cliFor(temp.dir)('sandbox', 'openapi')).stdout).servers[0].url).toBe(
      'http://127.0.0.1:4010',
    )
    const sandbox = await startLocalSandbox()
    try {
      const printed = JSON.parse((await cliFor(sandbox.configDir)('sandbox', 'openapi')).stdout)
      const served = await (await fetch(`${sandbox.url}/openapi.json`)).json()
      expect(printed.servers).toEqual([{url: sandbox.url, description: expect.any(String)}])
      expect(printed).toEqual(served)
    } finally {
      await sandbox.stop()
    }
  })
})
